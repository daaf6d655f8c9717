"""Each owner's reports version, kept by triggers on reports_report and reports_project, for the
API's cached answers (reports/answer_cache.py).

Every insert, change and delete of a report, and every change of a project's name, budget or
owner (what a report's answer shows of its project), raises the owner's number, whoever makes it.
A delete only raises an existing number: the owner's own deletion cascades to their reports, and
a new row for them would refer to a user who is going. SQLite drops a table's triggers when a
migration rebuilds it: a later migration that rebuilds reports_report or reports_project must run
drop_triggers first and add_triggers after (tests/reports/api/test_answer_cache.py checks that
they are all there).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from common import migration_ops

VERSIONS = "reports_ownerreportsversion"
RAISE = (
    f"INSERT INTO {VERSIONS} (owner_id, version) {{owners}}"
    f" ON CONFLICT (owner_id) DO UPDATE SET version = {VERSIONS}.version + 1"
)
RAISE_EXISTING = f"UPDATE {VERSIONS} SET version = version + 1 WHERE owner_id IN ({{owners}})"
# PostgreSQL: the report triggers per statement with transition tables, so that a bulk update or a
# cascade over 10⁶ reports raises each owner's number once, owners in order (no deadlock between
# two such statements). A project's per row: a trigger with a column list takes no transition table,
# and the report count triggers (0008_scale) change every project's report_count, which is not shown.
# (name, event, table, how it fires, what its function does)
POSTGRESQL = [
    (
        "reports_version_report_insert",
        "AFTER INSERT",
        "reports_report",
        "REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT",
        RAISE.format(owners="SELECT DISTINCT owner_id, 1 FROM new_rows ORDER BY owner_id"),
    ),
    (
        "reports_version_report_update",
        "AFTER UPDATE",
        "reports_report",
        "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT",
        RAISE.format(
            owners="SELECT owner_id, 1 FROM (SELECT owner_id FROM new_rows UNION SELECT owner_id FROM old_rows) AS o"
            " ORDER BY owner_id"
        ),
    ),
    (
        "reports_version_report_delete",
        "AFTER DELETE",
        "reports_report",
        "REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT",
        RAISE_EXISTING.format(owners="SELECT owner_id FROM old_rows"),
    ),
    (
        "reports_version_project_update",
        "AFTER UPDATE OF name, budget, owner_id",
        "reports_project",
        "FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.budget IS DISTINCT FROM NEW.budget"
        " OR OLD.owner_id IS DISTINCT FROM NEW.owner_id)",
        RAISE.format(
            owners="SELECT DISTINCT owner_id, 1 FROM (VALUES (OLD.owner_id), (NEW.owner_id)) AS o (owner_id)"
            " ORDER BY owner_id"
        ),
    ),
]
TRIGGER_NAMES = [name for name, *_ in POSTGRESQL]
POSTGRESQL_TRIGGERS = "\n".join(
    f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN {action}; RETURN NULL; END $$;\n"
    f"CREATE TRIGGER {name} {event} ON {table} {how} EXECUTE FUNCTION {name}();"
    for name, event, table, how, action in POSTGRESQL
)
POSTGRESQL_DROP = "\n".join(
    f"DROP TRIGGER IF EXISTS {name} ON {table}; DROP FUNCTION IF EXISTS {name}();"
    for name, _, table, _, _ in POSTGRESQL
)

SQLITE_TRIGGERS = [
    f"""CREATE TRIGGER reports_version_report_insert AFTER INSERT ON reports_report BEGIN
        {RAISE.format(owners="VALUES (NEW.owner_id, 1)")};
    END""",
    f"""CREATE TRIGGER reports_version_report_update AFTER UPDATE ON reports_report BEGIN
        {RAISE_EXISTING.format(owners="OLD.owner_id")};
        {RAISE.format(owners="SELECT NEW.owner_id, 1 WHERE NEW.owner_id IS NOT OLD.owner_id")};
    END""",
    f"""CREATE TRIGGER reports_version_report_delete AFTER DELETE ON reports_report BEGIN
        {RAISE_EXISTING.format(owners="OLD.owner_id")};
    END""",
    f"""CREATE TRIGGER reports_version_project_update AFTER UPDATE OF name, budget, owner_id ON reports_project
    WHEN OLD.name IS NOT NEW.name OR OLD.budget IS NOT NEW.budget OR OLD.owner_id IS NOT NEW.owner_id BEGIN
        {RAISE_EXISTING.format(owners="OLD.owner_id")};
        {RAISE.format(owners="SELECT NEW.owner_id, 1 WHERE NEW.owner_id IS NOT OLD.owner_id")};
    END""",
]
SQLITE_DROP = [f"DROP TRIGGER IF EXISTS {name}" for name in TRIGGER_NAMES]
BACKFILL = f"INSERT INTO {VERSIONS} (owner_id, version) SELECT DISTINCT owner_id, 1 FROM reports_report"


def add_triggers(apps, schema_editor):
    migration_ops.install_triggers(
        schema_editor,
        postgresql=POSTGRESQL_TRIGGERS,
        sqlite=SQLITE_TRIGGERS,
        fill=[f"DELETE FROM {VERSIONS}", BACKFILL],
    )


def drop_triggers(apps, schema_editor):
    migration_ops.drop_triggers(schema_editor, postgresql=POSTGRESQL_DROP, sqlite=SQLITE_DROP)


class Migration(migrations.Migration):
    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("reports", "0018_apikey_scope_and_expiry"),
    ]

    operations = [
        migrations.CreateModel(
            name="OwnerReportsVersion",
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
                ("version", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.RunPython(add_triggers, drop_triggers, elidable=False),
    ]
