"""Analyses run by a worker: status, lease and error. Not atomic, so that no statement holds the
reports' table for its scan: CHECKs validated apart from their ALTER TABLE, the unfinished
reports' index built CONCURRENTLY (common/migration_ops.py; docs/deployment.md, "Upgrading")."""

from django.conf import settings
from django.db import migrations, models

from common.migration_ops import AddCheckConstraintNotValid, AddFieldCheckValidatedLater, AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("reports", "0002_projects_and_reports"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="report",
            name="reports_report_score_range",
        ),
        migrations.RemoveConstraint(
            model_name="report",
            name="reports_report_result_valid",
        ),
        AddFieldCheckValidatedLater(
            model_name="report",
            name="analysis_run",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="report",
            name="error",
            field=models.TextField(blank=True, default="", help_text="Why the last analysis failed."),
        ),
        migrations.AddField(
            model_name="report",
            name="lease_until",
            field=models.DateTimeField(blank=True, null=True),
        ),
        # Every report made before analyses moved to a task worker was analysed in its request.
        migrations.AddField(
            model_name="report",
            name="status",
            field=models.CharField(
                choices=[("queued", "Queued"), ("running", "Running"), ("done", "Done"), ("failed", "Failed")],
                default="done",
                max_length=7,
            ),
        ),
        migrations.AlterField(
            model_name="report",
            name="status",
            field=models.CharField(
                choices=[("queued", "Queued"), ("running", "Running"), ("done", "Done"), ("failed", "Failed")],
                default="queued",
                max_length=7,
            ),
        ),
        migrations.AlterField(
            model_name="report",
            name="generated_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="report",
            name="result",
            field=models.CharField(
                blank=True, choices=[("good", "Good"), ("decent", "Decent"), ("bad", "Bad")], default="", max_length=6
            ),
        ),
        migrations.AlterField(
            model_name="report",
            name="results",
            field=models.JSONField(blank=True, default=dict, help_text="Each check's outcome, grouped by category."),
        ),
        migrations.AlterField(
            model_name="report",
            name="score",
            field=models.PositiveSmallIntegerField(blank=True, help_text="0 to 100.", null=True),
        ),
        AddIndexConcurrently(
            model_name="report",
            index=models.Index(
                condition=models.Q(("status__in", ["queued", "running"])),
                fields=["status", "lease_until"],
                name="reports_report_unfinished",
            ),
        ),
        AddCheckConstraintNotValid(
            model_name="report",
            constraint=models.CheckConstraint(
                condition=models.Q(("score__isnull", True), ("score__lte", 100), _connector="OR"),
                name="reports_report_score_range",
            ),
        ),
        AddCheckConstraintNotValid(
            model_name="report",
            constraint=models.CheckConstraint(
                condition=models.Q(("result__in", ["", "good", "decent", "bad"])), name="reports_report_result_valid"
            ),
        ),
        AddCheckConstraintNotValid(
            model_name="report",
            constraint=models.CheckConstraint(
                condition=models.Q(("status__in", ["queued", "running", "done", "failed"])),
                name="reports_report_status_valid",
            ),
        ),
        AddCheckConstraintNotValid(
            model_name="report",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("status", "done"), _negated=True),
                    models.Q(
                        ("generated_at__isnull", False),
                        ("score__isnull", False),
                        models.Q(("result", ""), _negated=True),
                    ),
                    _connector="OR",
                ),
                name="reports_report_done_has_result",
                violation_error_message="A done report has a score, a result and generated_at.",
            ),
        ),
    ]
