"""Indexes for every list's ORDER BY (tiebreak included), search and sort_by=url, and kept report counts.

Not atomic: on PostgreSQL the indexes are built CONCURRENTLY (common.migration_ops), so a
large reports table stays writable meanwhile; the new indexes exist before the ones they
replace are dropped. The trigram index exists on PostgreSQL only (SQLite keeps LIKE).
"""

import django.contrib.postgres.indexes
import django.db.models.functions.text
from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations, models

from common import migration_ops
from common.migration_ops import AddIndexConcurrently, RemoveIndexConcurrently

# PostgreSQL: statement-level triggers with transition tables, so a bulk insert or a cascade
# that deletes 10⁶ reports updates each project once, not once per report.
POSTGRESQL_TRIGGERS = """
CREATE FUNCTION reports_report_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE reports_project AS p SET report_count = p.report_count + n.reports
    FROM (SELECT project_id, count(*) AS reports FROM new_reports GROUP BY project_id) AS n
    WHERE p.id = n.project_id;
    RETURN NULL;
END $$;
CREATE FUNCTION reports_report_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE reports_project AS p SET report_count = p.report_count - o.reports
    FROM (SELECT project_id, count(*) AS reports FROM old_reports GROUP BY project_id) AS o
    WHERE p.id = o.project_id;
    RETURN NULL;
END $$;
CREATE FUNCTION reports_report_count_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE reports_project SET report_count = report_count - 1 WHERE id = OLD.project_id;
    UPDATE reports_project SET report_count = report_count + 1 WHERE id = NEW.project_id;
    RETURN NULL;
END $$;
CREATE TRIGGER reports_report_count_insert AFTER INSERT ON reports_report
    REFERENCING NEW TABLE AS new_reports FOR EACH STATEMENT EXECUTE FUNCTION reports_report_count_insert();
CREATE TRIGGER reports_report_count_delete AFTER DELETE ON reports_report
    REFERENCING OLD TABLE AS old_reports FOR EACH STATEMENT EXECUTE FUNCTION reports_report_count_delete();
CREATE TRIGGER reports_report_count_move AFTER UPDATE OF project_id ON reports_report
    FOR EACH ROW WHEN (OLD.project_id IS DISTINCT FROM NEW.project_id) EXECUTE FUNCTION reports_report_count_move();
"""
POSTGRESQL_DROP = """
DROP TRIGGER IF EXISTS reports_report_count_insert ON reports_report;
DROP TRIGGER IF EXISTS reports_report_count_delete ON reports_report;
DROP TRIGGER IF EXISTS reports_report_count_move ON reports_report;
DROP FUNCTION IF EXISTS reports_report_count_insert();
DROP FUNCTION IF EXISTS reports_report_count_delete();
DROP FUNCTION IF EXISTS reports_report_count_move();
"""
SQLITE_TRIGGERS = [
    """CREATE TRIGGER reports_report_count_insert AFTER INSERT ON reports_report BEGIN
        UPDATE reports_project SET report_count = report_count + 1 WHERE id = NEW.project_id;
    END""",
    """CREATE TRIGGER reports_report_count_delete AFTER DELETE ON reports_report BEGIN
        UPDATE reports_project SET report_count = report_count - 1 WHERE id = OLD.project_id;
    END""",
    """CREATE TRIGGER reports_report_count_move AFTER UPDATE OF project_id ON reports_report
    WHEN OLD.project_id IS NOT NEW.project_id BEGIN
        UPDATE reports_project SET report_count = report_count - 1 WHERE id = OLD.project_id;
        UPDATE reports_project SET report_count = report_count + 1 WHERE id = NEW.project_id;
    END""",
]
SQLITE_DROP = [f"DROP TRIGGER IF EXISTS reports_report_count_{name}" for name in ("insert", "delete", "move")]
BACKFILL = (
    "UPDATE reports_project SET report_count ="
    " (SELECT count(*) FROM reports_report WHERE reports_report.project_id = reports_project.id)"
)


# SQLite drops a table's triggers whenever a migration rebuilds the table (AddField and most
# AlterField operations do), and cannot rebuild reports_project while these triggers name it:
# a later migration that rebuilds either table must run drop_count_triggers first and
# add_count_triggers after, or the kept counts stop following the reports on SQLite.
def add_count_triggers(apps, schema_editor):
    migration_ops.install_triggers(
        schema_editor, postgresql=POSTGRESQL_TRIGGERS, sqlite=SQLITE_TRIGGERS, fill=[BACKFILL]
    )


def drop_count_triggers(apps, schema_editor):
    migration_ops.drop_triggers(schema_editor, postgresql=POSTGRESQL_DROP, sqlite=SQLITE_DROP)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("reports", "0007_budgets_webhooks"),
    ]

    operations = [
        TrigramExtension(),
        AddIndexConcurrently(
            model_name="report",
            index=models.Index(fields=["owner", "generated_at", "id"], name="reports_report_owner_gen_id"),
        ),
        AddIndexConcurrently(
            model_name="report",
            index=models.Index(fields=["owner", "score", "id"], name="reports_report_owner_score_id"),
        ),
        AddIndexConcurrently(
            model_name="report",
            index=models.Index(
                models.F("owner"), django.db.models.functions.text.Left("url", 512), name="reports_report_owner_url"
            ),
        ),
        # In the database only: kept out of the model state, so that SQLite, rebuilding the table
        # for a later AddField, does not try to build an index type it lacks.
        migrations.SeparateDatabaseAndState(
            database_operations=[
                AddIndexConcurrently(
                    model_name="report",
                    index=django.contrib.postgres.indexes.GinIndex(
                        django.contrib.postgres.indexes.OpClass(
                            django.db.models.functions.text.Upper("url"), name="gin_trgm_ops"
                        ),
                        name="reports_report_url_trgm",
                    ),
                    postgresql_only=True,
                ),
            ],
        ),
        AddIndexConcurrently(
            model_name="report",
            index=models.Index(fields=["project", "generated_at", "id"], name="reports_report_project_gen"),
        ),
        RemoveIndexConcurrently(model_name="report", name="reports_report_owner_generated"),
        RemoveIndexConcurrently(model_name="report", name="reports_report_owner_score"),
        migrations.AddField(
            model_name="project",
            name="report_count",
            field=models.PositiveIntegerField(default=0, editable=False, help_text="How many reports it has."),
        ),
        migrations.RunPython(add_count_triggers, drop_count_triggers, elidable=False),
    ]
