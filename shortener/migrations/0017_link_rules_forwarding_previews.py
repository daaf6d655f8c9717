"""Redirect rules, per-link forwarding and redirect status, link previews (issue 46).

On SQLite AddField rebuilds the links table, which drops the tally triggers of migration 0010:
they are put back (with a fresh backfill) at the end, as 0010's docstring asks. On PostgreSQL
`redirect_status`' CHECKs are validated after they are added, without blocking writes to the
links (so not atomic).
"""

import importlib

from django.conf import settings
from django.db import migrations, models

from common.migration_ops import AddCheckConstraintNotValid, AddFieldCheckValidatedLater

tallies = importlib.import_module("shortener.migrations.0010_link_rank_buckets_and_tallies")


def restore_sqlite_triggers(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    with schema_editor.connection.cursor() as cursor:
        for statement in tallies.SQLITE_DROP:
            cursor.execute(statement)
    tallies.add_sqlite_triggers(schema_editor)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("shortener", "0016_link_moderation_and_imported_visits"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="shortlink",
            name="forward_path",
            field=models.BooleanField(default=False, help_text="/<code>/extra/path goes on to the target's path."),
        ),
        migrations.AddField(
            model_name="shortlink",
            name="forward_query",
            field=models.BooleanField(default=False, help_text="The visitor's query string goes to the target."),
        ),
        migrations.AddField(
            model_name="shortlink",
            name="preview_description",
            field=models.CharField(blank=True, default="", max_length=1000),
        ),
        migrations.AddField(
            model_name="shortlink",
            name="preview_image",
            field=models.URLField(blank=True, default="", max_length=2048),
        ),
        migrations.AddField(
            model_name="shortlink",
            name="preview_title",
            field=models.CharField(blank=True, default="", max_length=300),
        ),
        AddFieldCheckValidatedLater(
            model_name="shortlink",
            name="redirect_status",
            field=models.PositiveSmallIntegerField(
                blank=True, choices=[(301, "301"), (302, "302"), (307, "307"), (308, "308")], null=True
            ),
        ),
        migrations.AddField(
            model_name="shortlink",
            name="rules",
            field=models.JSONField(blank=True, default=list, help_text="Redirect rules, in order; first match wins."),
        ),
        AddCheckConstraintNotValid(
            model_name="shortlink",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("redirect_status__isnull", True), ("redirect_status__in", (301, 302, 307, 308)), _connector="OR"
                ),
                name="shortener_shortlink_redirect_status_valid",
            ),
        ),
        migrations.RunPython(restore_sqlite_triggers, restore_sqlite_triggers),
    ]
