"""Moderation (disabled links, reports) and imported visit counts (issue 46, items 5 and 6).

On SQLite, adding a NOT NULL column with a default rebuilds shortener_shortlink, which drops its
tally triggers (see 0010): they are dropped before and added again after, with a fresh backfill.
On PostgreSQL `imported_visits`' CHECK (>= 0) is validated after the column is added, without
blocking writes to the links (so not atomic).
"""

import importlib

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

from common.migration_ops import AddFieldCheckValidatedLater

tallies = importlib.import_module("shortener.migrations.0010_link_rank_buckets_and_tallies")


def drop_sqlite_triggers(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        with schema_editor.connection.cursor() as cursor:
            for statement in tallies.SQLITE_DROP:
                cursor.execute(statement)


def add_sqlite_triggers(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        tallies.add_sqlite_triggers(schema_editor)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("shortener", "0015_limit_counter_to_common"),
    ]

    operations = [
        migrations.RunPython(drop_sqlite_triggers, add_sqlite_triggers),
        migrations.CreateModel(
            name="ReportedLink",
            fields=[],
            options={
                "verbose_name": "reported link",
                "verbose_name_plural": "reported links (moderation queue)",
                "proxy": True,
                "indexes": [],
                "constraints": [],
            },
            bases=("shortener.shortlink",),
        ),
        migrations.AddField(
            model_name="shortlink",
            name="disabled_at",
            field=models.DateTimeField(blank=True, help_text="Disabled by an admin or the blocklist.", null=True),
        ),
        migrations.AddField(
            model_name="shortlink",
            name="disabled_reason",
            field=models.CharField(blank=True, default="", max_length=200),
        ),
        AddFieldCheckValidatedLater(
            model_name="shortlink",
            name="imported_visits",
            field=models.PositiveBigIntegerField(default=0, help_text="Visits counted before the import."),
        ),
        migrations.CreateModel(
            name="LinkReport",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("reason", models.CharField(max_length=1000)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("resolved_at", models.DateTimeField(blank=True, null=True)),
                (
                    "link",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="reports",
                        to="shortener.shortlink",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["link", "created_at"], name="shortener_linkreport_link_idx"),
                    models.Index(
                        condition=models.Q(("resolved_at__isnull", True)),
                        fields=["created_at"],
                        name="shortener_linkreport_open_idx",
                    ),
                ],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("reason", ""), _negated=True), name="shortener_linkreport_reason_not_empty"
                    )
                ],
            },
        ),
        migrations.RunPython(add_sqlite_triggers, drop_sqlite_triggers),
    ]
