"""Indexes matching each list's whole ORDER BY (tiebreak included), built without locking writes; one less on visits."""

import django.db.models.deletion
from django.db import migrations, models

from common.migration_ops import AddIndexConcurrently, RemoveIndexConcurrently

# The index Django made for Visit.link; (link, visitor, day)'s unique index serves its lookups.
VISIT_LINK_INDEX = "shortener_visit_link_id_51f64d29"


def drop_visit_link_index(apps, schema_editor):
    concurrently = "CONCURRENTLY " if schema_editor.connection.vendor == "postgresql" else ""
    schema_editor.execute(f"DROP INDEX {concurrently}IF EXISTS {VISIT_LINK_INDEX}")


def create_visit_link_index(apps, schema_editor):
    schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {VISIT_LINK_INDEX} ON shortener_visit (link_id)")


class Migration(migrations.Migration):
    # CREATE INDEX CONCURRENTLY cannot run in a transaction (common/migration_ops.py).
    atomic = False

    dependencies = [
        ("shortener", "0006_daily_visits_live_link_count"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="shortlink",
            index=models.Index(
                condition=models.Q(("deleted_at__isnull", True)),
                fields=["-counter", "-created_at", "-id"],
                name="shortener_link_rank_idx",
            ),
        ),
        AddIndexConcurrently(
            model_name="shortlink",
            index=models.Index(
                condition=models.Q(("deleted_at__isnull", True)),
                fields=["owner", "-counter", "-created_at", "-id"],
                name="shortener_link_owner_rank_idx",
            ),
        ),
        AddIndexConcurrently(
            model_name="shortlink",
            index=models.Index(
                condition=models.Q(("deleted_at__isnull", True)),
                fields=["owner", "created_at", "id"],
                name="shortener_link_export_idx",
            ),
        ),
        AddIndexConcurrently(
            model_name="shortlink",
            index=models.Index(fields=["-created_at", "-id"], name="shortener_link_created_idx"),
        ),
        # Only once their replacements exist, so the lists never lose their index meanwhile.
        RemoveIndexConcurrently(model_name="shortlink", name="shortener_shortlink_owner_idx"),
        RemoveIndexConcurrently(model_name="shortlink", name="shortener_shortlink_top_idx"),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="visit",
                    name="link",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="shortener.shortlink",
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(drop_visit_link_index, create_visit_link_index)],
        ),
    ]
