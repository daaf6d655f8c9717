"""Indexes matching each list's whole ORDER BY (tiebreak included), built without locking writes."""

from django.db import migrations, models

from shortener.migration_operations import AddIndexConcurrentlyOnPostgres, RemoveIndexConcurrentlyOnPostgres


class Migration(migrations.Migration):
    # CREATE INDEX CONCURRENTLY cannot run in a transaction (shortener/migration_operations.py).
    atomic = False

    dependencies = [
        ("shortener", "0006_daily_visits_live_link_count"),
    ]

    operations = [
        AddIndexConcurrentlyOnPostgres(
            model_name="shortlink",
            index=models.Index(
                condition=models.Q(("deleted_at__isnull", True)),
                fields=["-counter", "-created_at", "-id"],
                name="shortener_link_rank_idx",
            ),
        ),
        AddIndexConcurrentlyOnPostgres(
            model_name="shortlink",
            index=models.Index(
                condition=models.Q(("deleted_at__isnull", True)),
                fields=["owner", "-counter", "-created_at", "-id"],
                name="shortener_link_owner_rank_idx",
            ),
        ),
        AddIndexConcurrentlyOnPostgres(
            model_name="shortlink",
            index=models.Index(
                condition=models.Q(("deleted_at__isnull", True)),
                fields=["owner", "created_at", "id"],
                name="shortener_link_export_idx",
            ),
        ),
        AddIndexConcurrentlyOnPostgres(
            model_name="shortlink",
            index=models.Index(fields=["-created_at", "-id"], name="shortener_link_created_idx"),
        ),
        # Only once their replacements exist, so the lists never lose their index meanwhile.
        RemoveIndexConcurrentlyOnPostgres(model_name="shortlink", name="shortener_shortlink_owner_idx"),
        RemoveIndexConcurrentlyOnPostgres(model_name="shortlink", name="shortener_shortlink_top_idx"),
    ]
