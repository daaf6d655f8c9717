"""Each owner's report count, kept by triggers on reports_report, for the unfiltered list's total.

Like Project.report_count (0008_scale), the count is kept in the database, so that no code path
(views, the admin, the shell, a cascade from a deleted user or project) can forget it. SQLite
drops a table's triggers when a migration rebuilds it: a later migration that rebuilds
reports_report must run drop_owner_triggers first and add_owner_triggers after (as for 0008's).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from common import migration_ops

# Statement-level on PostgreSQL with transition tables: a bulk insert or a cascade that deletes
# 10⁶ reports touches each owner's row once. An owner's first report inserts the row (upsert).
POSTGRESQL_TRIGGERS = """
CREATE FUNCTION reports_owner_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO reports_ownerreportcount AS c (owner_id, report_count)
    SELECT owner_id, count(*) FROM new_reports GROUP BY owner_id ORDER BY owner_id
    ON CONFLICT (owner_id) DO UPDATE SET report_count = c.report_count + EXCLUDED.report_count;
    RETURN NULL;
END $$;
CREATE FUNCTION reports_owner_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE reports_ownerreportcount AS c SET report_count = c.report_count - o.reports
    FROM (SELECT owner_id, count(*) AS reports FROM old_reports GROUP BY owner_id) AS o
    WHERE c.owner_id = o.owner_id;
    RETURN NULL;
END $$;
CREATE FUNCTION reports_owner_count_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE reports_ownerreportcount SET report_count = report_count - 1 WHERE owner_id = OLD.owner_id;
    INSERT INTO reports_ownerreportcount AS c (owner_id, report_count) VALUES (NEW.owner_id, 1)
    ON CONFLICT (owner_id) DO UPDATE SET report_count = c.report_count + 1;
    RETURN NULL;
END $$;
CREATE TRIGGER reports_owner_count_insert AFTER INSERT ON reports_report
    REFERENCING NEW TABLE AS new_reports FOR EACH STATEMENT EXECUTE FUNCTION reports_owner_count_insert();
CREATE TRIGGER reports_owner_count_delete AFTER DELETE ON reports_report
    REFERENCING OLD TABLE AS old_reports FOR EACH STATEMENT EXECUTE FUNCTION reports_owner_count_delete();
CREATE TRIGGER reports_owner_count_move AFTER UPDATE OF owner_id ON reports_report
    FOR EACH ROW WHEN (OLD.owner_id IS DISTINCT FROM NEW.owner_id) EXECUTE FUNCTION reports_owner_count_move();
"""
POSTGRESQL_DROP = """
DROP TRIGGER IF EXISTS reports_owner_count_insert ON reports_report;
DROP TRIGGER IF EXISTS reports_owner_count_delete ON reports_report;
DROP TRIGGER IF EXISTS reports_owner_count_move ON reports_report;
DROP FUNCTION IF EXISTS reports_owner_count_insert();
DROP FUNCTION IF EXISTS reports_owner_count_delete();
DROP FUNCTION IF EXISTS reports_owner_count_move();
"""
SQLITE_TRIGGERS = [
    """CREATE TRIGGER reports_owner_count_insert AFTER INSERT ON reports_report BEGIN
        INSERT INTO reports_ownerreportcount (owner_id, report_count) VALUES (NEW.owner_id, 1)
        ON CONFLICT (owner_id) DO UPDATE SET report_count = report_count + 1;
    END""",
    """CREATE TRIGGER reports_owner_count_delete AFTER DELETE ON reports_report BEGIN
        UPDATE reports_ownerreportcount SET report_count = report_count - 1 WHERE owner_id = OLD.owner_id;
    END""",
    """CREATE TRIGGER reports_owner_count_move AFTER UPDATE OF owner_id ON reports_report
    WHEN OLD.owner_id IS NOT NEW.owner_id BEGIN
        UPDATE reports_ownerreportcount SET report_count = report_count - 1 WHERE owner_id = OLD.owner_id;
        INSERT INTO reports_ownerreportcount (owner_id, report_count) VALUES (NEW.owner_id, 1)
        ON CONFLICT (owner_id) DO UPDATE SET report_count = report_count + 1;
    END""",
]
SQLITE_DROP = [f"DROP TRIGGER IF EXISTS reports_owner_count_{name}" for name in ("insert", "delete", "move")]
BACKFILL = (
    "INSERT INTO reports_ownerreportcount (owner_id, report_count)"
    " SELECT owner_id, count(*) FROM reports_report GROUP BY owner_id"
)


def add_owner_triggers(apps, schema_editor):
    migration_ops.install_triggers(
        schema_editor,
        postgresql=POSTGRESQL_TRIGGERS,
        sqlite=SQLITE_TRIGGERS,
        fill=["DELETE FROM reports_ownerreportcount", BACKFILL],
    )


def drop_owner_triggers(apps, schema_editor):
    migration_ops.drop_triggers(schema_editor, postgresql=POSTGRESQL_DROP, sqlite=SQLITE_DROP)


class Migration(migrations.Migration):
    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("reports", "0008_scale"),
    ]

    operations = [
        migrations.CreateModel(
            name="OwnerReportCount",
            fields=[
                (
                    "owner",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.DB_CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("report_count", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.RunPython(add_owner_triggers, drop_owner_triggers, elidable=False),
    ]
