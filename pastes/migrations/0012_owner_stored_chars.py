"""Each owner's stored characters, kept by triggers on the pastes, their files and revisions, for the quota.

The quota counts a paste's content, its files 2… (pastes_pastefile) and its kept revisions
(pastes_pasterevision with files); summed at every create and edit, that read every row the owner
has. Kept in the database like reports' OwnerReportCount, so that no code path (views, the admin,
the shell, a cascade from a deleted user) can forget it.

Deleting a paste subtracts it with the files and revisions it still has, and deleting a file or a
revision subtracts it only while its paste exists: the total stays right whether the children go
first (Django's cascade) or after. SQLite drops a table's triggers when a migration rebuilds it: a
later migration that rebuilds one of the three tables must drop these triggers first and add them
after (tests/pastes/test_stored_chars.py checks that they are all there).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from common import migration_ops

COUNTS = "pastes_ownerstoredchars"


def children(paste_id: str) -> str:
    """What the files 2… and the kept revisions of the paste `paste_id` (an SQL expression) hold."""
    return (
        f"(SELECT coalesce(sum(content_chars), 0) FROM pastes_pastefile WHERE paste_id = {paste_id})"
        f" + (SELECT coalesce(sum(size), 0) FROM pastes_pasterevision WHERE paste_id = {paste_id}"
        " AND files IS NOT NULL)"
    )


# (table, name in the triggers' names, the columns whose change moves characters, a row's characters)
TABLES = [
    ("pastes_paste", "paste", "content, owner_id", "{row}.content_chars"),
    ("pastes_pastefile", "file", "content, paste_id", "{row}.content_chars"),
    (
        "pastes_pasterevision",
        "revision",
        "files, size, paste_id",
        "CASE WHEN {row}.files IS NULL THEN 0 ELSE {row}.size END",
    ),
]
OPERATIONS = ("insert", "delete", "update")
TRIGGER_NAMES = [f"pastes_stored_chars_{name}_{op}" for _, name, _, _ in TABLES for op in OPERATIONS]

# --- PostgreSQL: inserts and deletes per statement with transition tables, so that a bulk insert or a
# cascade that deletes 10⁶ rows touches each owner's row once; changes per row (a trigger with a
# column list takes no transition table).

UPSERT = f"INSERT INTO {COUNTS} AS c (owner_id, chars) {{rows}} ON CONFLICT (owner_id) DO UPDATE SET chars = c.chars + EXCLUDED.chars"


def postgresql_triggers_of(table: str, name: str, columns: str, chars: str) -> str:
    """The three functions of `table` and the triggers that call them."""
    if name == "paste":
        inserted = "SELECT owner_id, sum(content_chars) FROM new_rows GROUP BY owner_id ORDER BY owner_id"
        deleted = (
            f"SELECT r.owner_id, sum(r.content_chars + {children('r.id')}) AS chars FROM old_rows r GROUP BY r.owner_id"
        )
        update = f"""DECLARE
    kept bigint := {children("NEW.id")};
BEGIN
    PERFORM pastes_stored_chars_add(OLD.owner_id, -(OLD.content_chars + kept));
    PERFORM pastes_stored_chars_add(NEW.owner_id, NEW.content_chars + kept);"""
    else:
        owner_join = "JOIN pastes_paste p ON p.id = r.paste_id"
        inserted = f"SELECT p.owner_id, sum({chars.format(row='r')}) FROM new_rows r {owner_join} GROUP BY p.owner_id ORDER BY p.owner_id"
        deleted = (
            f"SELECT p.owner_id, sum({chars.format(row='r')}) AS chars FROM old_rows r {owner_join} GROUP BY p.owner_id"
        )
        update = f"""BEGIN
    PERFORM pastes_stored_chars_add(p.owner_id, -({chars.format(row="OLD")})) FROM pastes_paste p WHERE p.id = OLD.paste_id;
    PERFORM pastes_stored_chars_add(p.owner_id, {chars.format(row="NEW")}) FROM pastes_paste p WHERE p.id = NEW.paste_id;"""
    function = f"pastes_stored_chars_{name}"
    return f"""
CREATE FUNCTION {function}_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    {UPSERT.format(rows=inserted)};
    RETURN NULL;
END $$;
CREATE FUNCTION {function}_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE {COUNTS} AS c SET chars = c.chars - o.chars FROM ({deleted}) AS o WHERE c.owner_id = o.owner_id;
    RETURN NULL;
END $$;
CREATE FUNCTION {function}_update() RETURNS trigger LANGUAGE plpgsql AS $$
{update}
    RETURN NULL;
END $$;
CREATE TRIGGER {function}_insert AFTER INSERT ON {table}
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION {function}_insert();
CREATE TRIGGER {function}_delete AFTER DELETE ON {table}
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION {function}_delete();
CREATE TRIGGER {function}_update AFTER UPDATE OF {columns} ON {table}
    FOR EACH ROW EXECUTE FUNCTION {function}_update();
"""


def postgresql_triggers() -> str:
    add = f"""
CREATE FUNCTION pastes_stored_chars_add(owner integer, delta bigint) RETURNS void LANGUAGE sql AS $$
    {UPSERT.format(rows="VALUES (owner, delta)")};
$$;
"""
    return "\n".join([add] + [postgresql_triggers_of(*table) for table in TABLES])


def postgresql_drop() -> str:
    return "\n".join(
        [
            f"DROP TRIGGER IF EXISTS pastes_stored_chars_{name}_{op} ON {table};"
            for table, name, _, _ in TABLES
            for op in OPERATIONS
        ]
        + [
            f"DROP FUNCTION IF EXISTS pastes_stored_chars_{name}_{op}();"
            for _, name, _, _ in TABLES
            for op in OPERATIONS
        ]
        + ["DROP FUNCTION IF EXISTS pastes_stored_chars_add(integer, bigint);"]
    )


# --- SQLite: per row.

SQLITE_ADD = f"INSERT INTO {COUNTS} (owner_id, chars) {{rows}} ON CONFLICT (owner_id) DO UPDATE SET chars = chars + excluded.chars;"
SQLITE_SUBTRACT = f"UPDATE {COUNTS} SET chars = chars - ({{chars}}) WHERE owner_id = {{owner}};"


def sqlite_triggers() -> list[str]:
    paste_old, paste_new = f"OLD.content_chars + {children('OLD.id')}", f"NEW.content_chars + {children('NEW.id')}"
    statements = [
        f"""CREATE TRIGGER pastes_stored_chars_paste_insert AFTER INSERT ON pastes_paste BEGIN
        {SQLITE_ADD.format(rows="VALUES (NEW.owner_id, NEW.content_chars)")}
    END""",
        f"""CREATE TRIGGER pastes_stored_chars_paste_delete AFTER DELETE ON pastes_paste BEGIN
        {SQLITE_SUBTRACT.format(chars=paste_old, owner="OLD.owner_id")}
    END""",
        f"""CREATE TRIGGER pastes_stored_chars_paste_update AFTER UPDATE OF content, owner_id ON pastes_paste BEGIN
        {SQLITE_SUBTRACT.format(chars=paste_old, owner="OLD.owner_id")}
        {SQLITE_ADD.format(rows=f"VALUES (NEW.owner_id, {paste_new})")}
    END""",
    ]
    for table, name, columns, chars in TABLES[1:]:
        owner_of = "(SELECT owner_id FROM pastes_paste WHERE id = {row}.paste_id)"
        add_new = SQLITE_ADD.format(
            rows=f"SELECT owner_id, {chars.format(row='NEW')} FROM pastes_paste WHERE id = NEW.paste_id"
        )
        subtract_old = SQLITE_SUBTRACT.format(chars=chars.format(row="OLD"), owner=owner_of.format(row="OLD"))
        statements += [
            f"CREATE TRIGGER pastes_stored_chars_{name}_insert AFTER INSERT ON {table} BEGIN {add_new} END",
            f"CREATE TRIGGER pastes_stored_chars_{name}_delete AFTER DELETE ON {table} BEGIN {subtract_old} END",
            f"CREATE TRIGGER pastes_stored_chars_{name}_update AFTER UPDATE OF {columns} ON {table} BEGIN"
            f" {subtract_old} {add_new} END",
        ]
    return statements


BACKFILL = f"""INSERT INTO {COUNTS} (owner_id, chars)
SELECT owner_id, sum(chars) FROM (
    SELECT owner_id, content_chars AS chars FROM pastes_paste
    UNION ALL SELECT p.owner_id, f.content_chars FROM pastes_pastefile f JOIN pastes_paste p ON p.id = f.paste_id
    UNION ALL SELECT p.owner_id, r.size FROM pastes_pasterevision r JOIN pastes_paste p ON p.id = r.paste_id
        WHERE r.files IS NOT NULL
) AS stored GROUP BY owner_id"""


def add_stored_chars_triggers(apps, schema_editor):
    migration_ops.install_triggers(
        schema_editor,
        postgresql=postgresql_triggers(),
        sqlite=sqlite_triggers(),
        fill=[f"DELETE FROM {COUNTS}", BACKFILL],
    )


def drop_stored_chars_triggers(apps, schema_editor):
    migration_ops.drop_triggers(
        schema_editor,
        postgresql=postgresql_drop(),
        sqlite=[f"DROP TRIGGER IF EXISTS {name}" for name in TRIGGER_NAMES],
    )


class Migration(migrations.Migration):
    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("pastes", "0011_paste_attachments"),
    ]

    operations = [
        migrations.CreateModel(
            name="OwnerStoredChars",
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
                ("chars", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.RunPython(add_stored_chars_triggers, drop_stored_chars_triggers, elidable=False),
    ]
