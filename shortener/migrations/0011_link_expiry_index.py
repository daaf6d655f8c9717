"""The index GET /fullstats reads today's expiring links from, built CONCURRENTLY on PostgreSQL."""

from django.db import migrations, models

from common.migration_ops import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("shortener", "0010_link_rank_buckets_and_tallies"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="shortlink",
            index=models.Index(
                condition=models.Q(("deleted_at__isnull", True), ("expires_at__isnull", False)),
                fields=["expires_at"],
                name="shortener_link_expiry_idx",
            ),
        ),
    ]
