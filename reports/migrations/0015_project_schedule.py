# Scheduled re-runs of a project (issue 22 item 2): how often, and when the next one is due.

from django.conf import settings
from django.db import migrations, models

from reports.migrations import _count_triggers_sqlite as count_triggers


class Migration(migrations.Migration):
    dependencies = [
        ("reports", "0014_site_audits"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # SQLite rebuilds reports_project for these fields and cannot while the report count
        # triggers name it (see 0008_scale): they are dropped around the rebuild.
        migrations.RunPython(count_triggers.drop, count_triggers.add),
        migrations.AddField(
            model_name="project",
            name="last_run_at",
            field=models.DateTimeField(blank=True, help_text="When the last scheduled re-run started.", null=True),
        ),
        migrations.AddField(
            model_name="project",
            name="next_run_at",
            field=models.DateTimeField(blank=True, help_text="When the next scheduled re-run is due.", null=True),
        ),
        migrations.AddField(
            model_name="project",
            name="schedule",
            field=models.CharField(
                choices=[("none", "None"), ("daily", "Daily"), ("weekly", "Weekly")],
                default="none",
                help_text="How often the project is re-run (its reports' URLs analysed again).",
                max_length=6,
            ),
        ),
        migrations.AddIndex(
            model_name="project",
            index=models.Index(
                condition=models.Q(("next_run_at__isnull", False)),
                fields=["next_run_at"],
                name="reports_project_schedule_due",
            ),
        ),
        migrations.AddConstraint(
            model_name="project",
            constraint=models.CheckConstraint(
                condition=models.Q(("schedule__in", ["none", "daily", "weekly"])), name="reports_project_schedule_valid"
            ),
        ),
        migrations.AddConstraint(
            model_name="project",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("schedule", "none"), ("next_run_at__isnull", True)),
                    models.Q(models.Q(("schedule", "none"), _negated=True), ("next_run_at__isnull", False)),
                    _connector="OR",
                ),
                name="reports_project_next_run_iff_scheduled",
            ),
        ),
        migrations.RunPython(count_triggers.add, count_triggers.drop),
    ]
