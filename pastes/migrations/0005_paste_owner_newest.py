"""The account list's index ends in the id, its ORDER BY's tiebreak; the admin's list gets one.

Not atomic: on PostgreSQL the index is built CONCURRENTLY (common.migration_ops), so a large
pastes table stays writable meanwhile; the new index exists before the old one is dropped.
"""

from django.db import migrations, models

from common.migration_ops import AddIndexConcurrently, RemoveIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("pastes", "0004_paste_syntax"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="paste",
            index=models.Index(
                fields=["owner", "-created_at", "-id", "content_chars"], name="pastes_paste_owner_newest"
            ),
        ),
        AddIndexConcurrently(
            model_name="paste",
            index=models.Index(fields=["-created_at", "-id"], name="pastes_paste_newest"),
        ),
        RemoveIndexConcurrently(model_name="paste", name="pastes_paste_owner_created"),
    ]
