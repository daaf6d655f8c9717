"""The projects' (owner, created_at) index gains the sort's tiebreak, id: the pager's cursors seek it.

Built CONCURRENTLY on PostgreSQL before the old one is dropped (common.migration_ops).
"""

from django.db import migrations, models

from common.migration_ops import AddIndexConcurrently, RemoveIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("reports", "0011_sqlite_url_search")]

    operations = [
        AddIndexConcurrently(
            model_name="project",
            index=models.Index(fields=["owner", "created_at", "id"], name="reports_project_owner_new_id"),
        ),
        RemoveIndexConcurrently(model_name="project", name="reports_project_owner_created"),
    ]
