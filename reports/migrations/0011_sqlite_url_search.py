"""SQLite only: a trigram full-text index of the report URLs for `search=`, and an index for `sort_by=url`.

PostgreSQL has both already (0008_scale: the pg_trgm GIN index, the 512-character prefix
index); this migration does nothing there. On SQLite (reports/url_search.py):

- `reports_report_url_fts`, an FTS5 table with the trigram tokenizer over reports_report.url
  (external content: it stores the index, not the URLs again), kept by triggers on
  reports_report and filled from the existing reports. Skipped where SQLite lacks FTS5 or the
  trigram tokenizer (before 3.34): search then keeps the plain LIKE scan.
- `reports_report_owner_url_full` on (owner_id, url): SQLite has no B-tree entry limit, so the
  whole URL is indexed and `ORDER BY url, id` (reports.filters) is read in index order; the
  planner cannot tell that the prefix index orders the whole URLs, and sorted all of them.

Both are kept out of the model state (as the trigram index is): SQLite drops a table's triggers
whenever a migration rebuilds it, so a later migration that rebuilds reports_report must run
drop_search and add_search again around it (as for 0008's and 0009's count triggers).
"""

from django.db import migrations, transaction

FTS = "reports_report_url_fts"
TRIGGERS = [
    f"""CREATE TRIGGER {FTS}_insert AFTER INSERT ON reports_report BEGIN
        INSERT INTO {FTS} (rowid, url) VALUES (NEW.id, NEW.url);
    END""",
    f"""CREATE TRIGGER {FTS}_delete AFTER DELETE ON reports_report BEGIN
        INSERT INTO {FTS} ({FTS}, rowid, url) VALUES ('delete', OLD.id, OLD.url);
    END""",
    f"""CREATE TRIGGER {FTS}_update AFTER UPDATE OF url ON reports_report BEGIN
        INSERT INTO {FTS} ({FTS}, rowid, url) VALUES ('delete', OLD.id, OLD.url);
        INSERT INTO {FTS} (rowid, url) VALUES (NEW.id, NEW.url);
    END""",
]
SORT_INDEX = "CREATE INDEX IF NOT EXISTS reports_report_owner_url_full ON reports_report (owner_id, url)"


def trigram_fts_available(cursor) -> bool:
    try:
        cursor.execute("CREATE VIRTUAL TABLE temp.reports_fts_probe USING fts5(x, tokenize='trigram')")
    except Exception:  # noqa: BLE001 - no FTS5, or no trigram tokenizer: any error means "not here"
        return False
    cursor.execute("DROP TABLE temp.reports_fts_probe")
    return True


def add_search(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    with transaction.atomic(using=schema_editor.connection.alias), schema_editor.connection.cursor() as cursor:
        cursor.execute(SORT_INDEX)
        if not trigram_fts_available(cursor):
            return
        cursor.execute(
            f"CREATE VIRTUAL TABLE {FTS} USING fts5(url, content='reports_report', content_rowid='id',"
            " tokenize='trigram')"
        )
        for statement in TRIGGERS:
            cursor.execute(statement)
        cursor.execute(f"INSERT INTO {FTS} ({FTS}) VALUES ('rebuild')")


def drop_search(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    with schema_editor.connection.cursor() as cursor:
        for name in ("insert", "delete", "update"):
            cursor.execute(f"DROP TRIGGER IF EXISTS {FTS}_{name}")
        cursor.execute(f"DROP TABLE IF EXISTS {FTS}")
        cursor.execute("DROP INDEX IF EXISTS reports_report_owner_url_full")


class Migration(migrations.Migration):
    dependencies = [("reports", "0010_task_result_admin_index")]

    operations = [migrations.RunPython(add_search, drop_search, elidable=False)]
