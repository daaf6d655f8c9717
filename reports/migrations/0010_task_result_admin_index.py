"""An index for the Django admin's list of analysis tasks (DBTaskResult, newest first).

The task results' table belongs to django_tasks_db, whose model has no index on enqueued_at:
the admin's `ORDER BY enqueued_at DESC, id DESC` sorted the whole table (10⁶ rows after years of
analyses) for each page. Built here, in the database only (the model is not ours), CONCURRENTLY
on PostgreSQL so that the queue stays writable meanwhile.
"""

from django.db import migrations

TABLE = "django_tasks_database_dbtaskresult"
INDEX = "reports_taskresult_enqueued"


def add_index(apps, schema_editor):
    concurrently = "CONCURRENTLY " if schema_editor.connection.vendor == "postgresql" else ""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"CREATE INDEX {concurrently}IF NOT EXISTS {INDEX} ON {TABLE} (enqueued_at, id)")


def drop_index(apps, schema_editor):
    concurrently = "CONCURRENTLY " if schema_editor.connection.vendor == "postgresql" else ""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX {concurrently}IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("reports", "0009_owner_report_count"),
        ("django_tasks_database", "0021_conditional_partial_index_ordering"),
    ]

    operations = [migrations.RunPython(add_index, drop_index, elidable=False)]
