"""The category scores' columns. Not atomic: each column's CHECK and the range CHECK are validated
apart from their ALTER TABLE, which then locks the reports' table for a moment only
(common/migration_ops.py; docs/deployment.md, "Upgrading")."""

from django.conf import settings
from django.db import migrations, models

from common.migration_ops import AddCheckConstraintNotValid, AddFieldCheckValidatedLater


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("reports", "0004_report_rendering"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        AddFieldCheckValidatedLater(
            model_name="report",
            name="score_accessibility",
            field=models.PositiveSmallIntegerField(blank=True, help_text="Accessibility score, 0 to 100.", null=True),
        ),
        AddFieldCheckValidatedLater(
            model_name="report",
            name="score_miscellaneous",
            field=models.PositiveSmallIntegerField(blank=True, help_text="Miscellaneous score, 0 to 100.", null=True),
        ),
        AddFieldCheckValidatedLater(
            model_name="report",
            name="score_performance",
            field=models.PositiveSmallIntegerField(blank=True, help_text="Performance score, 0 to 100.", null=True),
        ),
        AddFieldCheckValidatedLater(
            model_name="report",
            name="score_security",
            field=models.PositiveSmallIntegerField(blank=True, help_text="Security score, 0 to 100.", null=True),
        ),
        AddFieldCheckValidatedLater(
            model_name="report",
            name="score_seo",
            field=models.PositiveSmallIntegerField(blank=True, help_text="SEO score, 0 to 100.", null=True),
        ),
        AddCheckConstraintNotValid(
            model_name="report",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("score_seo__isnull", True), ("score_seo__lte", 100), _connector="OR"),
                    models.Q(("score_performance__isnull", True), ("score_performance__lte", 100), _connector="OR"),
                    models.Q(("score_security__isnull", True), ("score_security__lte", 100), _connector="OR"),
                    models.Q(("score_accessibility__isnull", True), ("score_accessibility__lte", 100), _connector="OR"),
                    models.Q(("score_miscellaneous__isnull", True), ("score_miscellaneous__lte", 100), _connector="OR"),
                ),
                name="reports_report_category_scores_range",
            ),
        ),
    ]
