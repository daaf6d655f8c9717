"""Expiry and visit limits of a link. Without a long lock on the links' table (docs/deployment.md,
"Upgrading"): the new partial unique index is built CONCURRENTLY before the old one is dropped,
and the CHECKs are validated apart from their ALTER TABLE (common/migration_ops.py)."""

from django.conf import settings
from django.db import migrations, models

from common.migration_ops import (
    AddCheckConstraintNotValid,
    AddFieldCheckValidatedLater,
    ReplaceUniqueConstraintConcurrently,
)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("shortener", "0004_link_import"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="shortlink",
            name="expires_at",
            field=models.DateTimeField(blank=True, help_text="The link stops redirecting then.", null=True),
        ),
        AddFieldCheckValidatedLater(
            model_name="shortlink",
            name="max_visits",
            field=models.PositiveIntegerField(
                blank=True, help_text="The link stops redirecting once its unique visits reach this.", null=True
            ),
        ),
        ReplaceUniqueConstraintConcurrently(
            model_name="shortlink",
            constraint=models.UniqueConstraint(
                condition=models.Q(
                    ("deleted_at__isnull", True),
                    ("expires_at__isnull", True),
                    ("is_custom", False),
                    ("max_visits__isnull", True),
                ),
                fields=("owner", "url_digest"),
                name="shortener_shortlink_owner_url_uniq",
            ),
        ),
        AddCheckConstraintNotValid(
            model_name="shortlink",
            constraint=models.CheckConstraint(
                condition=models.Q(("max_visits__isnull", True), ("max_visits__gte", 1), _connector="OR"),
                name="shortener_shortlink_max_visits_min",
            ),
        ),
    ]
