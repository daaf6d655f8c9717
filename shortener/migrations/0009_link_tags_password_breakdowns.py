"""Tags, link passwords and visit breakdowns. Not atomic, so that adding the password column locks
the links' table for a moment only, and the new partial unique index is built CONCURRENTLY before
the old one is dropped (common/migration_ops.py; docs/deployment.md, "Upgrading")."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from common.migration_ops import ReplaceUniqueConstraintConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("shortener", "0008_limit_counter"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="LinkTag",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=32)),
            ],
        ),
        migrations.CreateModel(
            name="VisitBreakdown",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("day", models.DateField()),
                ("dimension", models.CharField(max_length=16)),
                ("name", models.CharField(max_length=100)),
                ("visits", models.PositiveBigIntegerField(default=0)),
            ],
        ),
        migrations.AddField(
            model_name="shortlink",
            name="password_hash",
            field=models.CharField(blank=True, default="", editable=False, max_length=200),
        ),
        ReplaceUniqueConstraintConcurrently(
            model_name="shortlink",
            constraint=models.UniqueConstraint(
                condition=models.Q(
                    ("deleted_at__isnull", True),
                    ("expires_at__isnull", True),
                    ("is_custom", False),
                    ("max_visits__isnull", True),
                    ("password_hash", ""),
                ),
                fields=("owner", "url_digest"),
                name="shortener_shortlink_owner_url_uniq",
            ),
        ),
        migrations.AddField(
            model_name="linktag",
            name="link",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="tags",
                to="shortener.shortlink",
            ),
        ),
        migrations.AddField(
            model_name="visitbreakdown",
            name="link",
            field=models.ForeignKey(
                db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name="+", to="shortener.shortlink"
            ),
        ),
        migrations.AddIndex(
            model_name="linktag",
            index=models.Index(fields=["name", "link"], name="shortener_linktag_name_idx"),
        ),
        migrations.AddConstraint(
            model_name="linktag",
            constraint=models.UniqueConstraint(fields=("link", "name"), name="shortener_linktag_link_name_uniq"),
        ),
        migrations.AddIndex(
            model_name="visitbreakdown",
            index=models.Index(fields=["day"], name="shortener_breakdown_day_idx"),
        ),
        migrations.AddConstraint(
            model_name="visitbreakdown",
            constraint=models.UniqueConstraint(
                fields=("link", "day", "dimension", "name"), name="shortener_visitbreakdown_uniq"
            ),
        ),
    ]
