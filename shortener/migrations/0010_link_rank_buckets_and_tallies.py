"""Ranking buckets and link tallies (shortener.models.LinkRankBucket, LinkTally), kept by triggers on PostgreSQL.

Statement-level triggers with transition tables: the visit writer's UPDATE of 200 counters,
an import or a cascade changes each bucket and tally once per statement, not once per link,
and the rows are upserted in key order, so that two concurrent statements lock them in the
same order and cannot deadlock on them. On SQLite row triggers keep the tallies (not the
buckets: services/ranking.py walks the index there, meant for up to 10⁵ links).

SQLite drops a table's triggers whenever a migration rebuilds the table (AddField and most
AlterField operations do): a later migration that rebuilds shortener_shortlink on SQLite must
drop these triggers first and run add_sqlite_triggers() after (with a fresh backfill), or the
tallies stop following the links there (tests/shortener/test_ranking.py then fails).
"""

from django.db import migrations, models, transaction

from common.migration_ops import count_behind_a_watermark, id_range

TRIGGER_BODY = """
CREATE FUNCTION shortener_link_tallies_{op}() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    emptied bigint[];
BEGIN
    -- The buckets of both rankings: every live link's, and its owner's.
    WITH changes AS ({changes}),
    live AS (
        SELECT sign, owner_id, counter, (created_at AT TIME ZONE 'UTC')::date AS day
        FROM changes WHERE deleted_at IS NULL
    ),
    moved AS (
        INSERT INTO shortener_linkrankbucket AS b (scope, counter, day, links)
        SELECT scope, counter, day, SUM(sign) FROM (
            SELECT sign, 0::bigint AS scope, counter, day FROM live
            UNION ALL
            SELECT sign, owner_id, counter, day FROM live WHERE owner_id IS NOT NULL
        ) AS c
        GROUP BY scope, counter, day HAVING SUM(sign) <> 0 ORDER BY scope, counter, day
        ON CONFLICT (scope, counter, day) DO UPDATE SET links = b.links + EXCLUDED.links
        RETURNING b.id, b.links
    )
    SELECT array_agg(id) INTO emptied FROM moved WHERE links = 0;
    -- An emptied bucket goes (a top link's every visit empties one), so the walk stays short.
    IF emptied IS NOT NULL THEN
        DELETE FROM shortener_linkrankbucket WHERE id = ANY(emptied) AND links = 0;
    END IF;

    WITH changes AS ({changes}),
    keyed AS (
        SELECT sign, 'links' AS key FROM changes
        UNION ALL
        SELECT sign, 'generated' FROM changes WHERE NOT is_custom
        UNION ALL
        SELECT sign, 'owner:' || owner_id FROM changes WHERE deleted_at IS NULL AND owner_id IS NOT NULL
        UNION ALL
        SELECT sign, 'used_up' FROM changes WHERE deleted_at IS NULL AND counter >= max_visits
        UNION ALL
        SELECT sign, 'expires:' || to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM changes
        WHERE deleted_at IS NULL AND expires_at IS NOT NULL AND (max_visits IS NULL OR counter < max_visits)
    ),
    counted AS (
        INSERT INTO shortener_linktally AS t (key, value)
        SELECT key, SUM(sign) FROM keyed GROUP BY key HAVING SUM(sign) <> 0 ORDER BY key
        ON CONFLICT (key) DO UPDATE SET value = t.value + EXCLUDED.value
        RETURNING t.id, t.value
    )
    SELECT array_agg(id) INTO emptied FROM counted WHERE value = 0;
    IF emptied IS NOT NULL THEN
        DELETE FROM shortener_linktally WHERE id = ANY(emptied) AND value = 0;
    END IF;
    RETURN NULL;
END $$;
"""
SOURCES = {
    "insert": ("INSERT", "REFERENCING NEW TABLE AS new_links", "SELECT 1 AS sign, * FROM new_links"),
    "delete": ("DELETE", "REFERENCING OLD TABLE AS old_links", "SELECT -1 AS sign, * FROM old_links"),
    "update": (
        "UPDATE",
        "REFERENCING OLD TABLE AS old_links NEW TABLE AS new_links",
        "SELECT -1 AS sign, * FROM old_links UNION ALL SELECT 1, * FROM new_links",
    ),
}


def functions(body: str, watermark: int | None = None) -> str:
    """The three trigger functions made from `body`; with a watermark, they count only the links at or below it."""
    return "".join(
        body.format(op=op, changes=changes if watermark is None else below(changes, watermark)).replace(
            "CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1
        )
        for op, (_, _, changes) in SOURCES.items()
    )


def below(changes: str, watermark: int) -> str:
    # While the links already there are counted (common.migration_ops.count_behind_a_watermark).
    return f"SELECT * FROM ({changes}) AS all_changes WHERE id <= {int(watermark)}"


TRIGGERS = "".join(
    f"CREATE TRIGGER shortener_link_tallies_{op} AFTER {event} ON shortener_shortlink {referencing} "
    f"FOR EACH STATEMENT EXECUTE FUNCTION shortener_link_tallies_{op}();\n"
    for op, (event, referencing, _) in SOURCES.items()
)
CREATE = functions(TRIGGER_BODY) + TRIGGERS
DROP = "".join(
    f"DROP TRIGGER IF EXISTS shortener_link_tallies_{op} ON shortener_shortlink;\n"
    f"DROP FUNCTION IF EXISTS shortener_link_tallies_{op}();\n"
    for op in SOURCES
)
# The same keys as the trigger's, for the links already there.
BACKFILL = [
    """INSERT INTO shortener_linkrankbucket (scope, counter, day, links)
    SELECT 0, counter, (created_at AT TIME ZONE 'UTC')::date, COUNT(*) FROM shortener_shortlink
    WHERE deleted_at IS NULL GROUP BY 2, 3""",
    """INSERT INTO shortener_linkrankbucket (scope, counter, day, links)
    SELECT owner_id, counter, (created_at AT TIME ZONE 'UTC')::date, COUNT(*) FROM shortener_shortlink
    WHERE deleted_at IS NULL AND owner_id IS NOT NULL GROUP BY 1, 2, 3""",
    """INSERT INTO shortener_linktally (key, value)
    SELECT 'links', COUNT(*) FROM shortener_shortlink HAVING COUNT(*) > 0
    UNION ALL
    SELECT 'generated', COUNT(*) FROM shortener_shortlink WHERE NOT is_custom HAVING COUNT(*) > 0
    UNION ALL
    SELECT 'owner:' || owner_id, COUNT(*) FROM shortener_shortlink
    WHERE deleted_at IS NULL AND owner_id IS NOT NULL GROUP BY owner_id
    UNION ALL
    SELECT 'used_up', COUNT(*) FROM shortener_shortlink WHERE deleted_at IS NULL AND counter >= max_visits
    HAVING COUNT(*) > 0
    UNION ALL
    SELECT 'expires:' || to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), COUNT(*) FROM shortener_shortlink
    WHERE deleted_at IS NULL AND expires_at IS NOT NULL AND (max_visits IS NULL OR counter < max_visits)
    GROUP BY 1""",
]
# Each statement's key, to add a batch's counts to those of the batches before it.
BACKFILL_KEYS = ["scope, counter, day", "scope, counter, day", "key"]


def add_batch(cursor, backfill: list[str], keys: list[str], above: int, up_to: int | None) -> None:
    """Add the counts of the links with `above < id <= up_to` to the buckets and tallies (`backfill`'s statements)."""
    links = f"(SELECT * FROM shortener_shortlink WHERE {id_range(above, up_to)}) AS shortener_shortlink"
    for statement, key in zip(backfill, keys, strict=True):
        table, column = statement.split()[2], statement.split("(")[1].split(")")[0].split(", ")[-1]
        batched = statement.replace("FROM shortener_shortlink", f"FROM {links}")
        assert batched != statement
        cursor.execute(f"{batched} ON CONFLICT ({key}) DO UPDATE SET {column} = {table}.{column} + EXCLUDED.{column}")


def _sqlite_keys(row: str) -> str:
    """The tally keys of one link row (NEW or OLD), as the PostgreSQL trigger's."""
    return (
        f"SELECT 'links' AS key"
        f" UNION ALL SELECT 'generated' WHERE NOT {row}.is_custom"
        f" UNION ALL SELECT 'owner:' || {row}.owner_id WHERE {row}.deleted_at IS NULL AND {row}.owner_id IS NOT NULL"
        f" UNION ALL SELECT 'used_up' WHERE {row}.deleted_at IS NULL AND {row}.counter >= {row}.max_visits"
        f" UNION ALL SELECT 'expires:' || strftime('%Y-%m-%d', {row}.expires_at)"
        f" WHERE {row}.deleted_at IS NULL AND {row}.expires_at IS NOT NULL"
        f" AND ({row}.max_visits IS NULL OR {row}.counter < {row}.max_visits)"
    )


def _sqlite_add(row: str, sign: int) -> str:
    # WHERE true: SQLite's parser needs it between a SELECT and ON CONFLICT.
    return (
        f"INSERT INTO shortener_linktally (key, value) SELECT key, {sign} FROM ({_sqlite_keys(row)}) WHERE true "
        "ON CONFLICT (key) DO UPDATE SET value = value + excluded.value;"
    )


SQLITE_TRIGGERS = [
    f"CREATE TRIGGER shortener_link_tallies_insert AFTER INSERT ON shortener_shortlink BEGIN {_sqlite_add('NEW', 1)} END",
    f"CREATE TRIGGER shortener_link_tallies_delete AFTER DELETE ON shortener_shortlink BEGIN {_sqlite_add('OLD', -1)} END",
    "CREATE TRIGGER shortener_link_tallies_update AFTER UPDATE OF is_custom, owner_id, deleted_at, counter, max_visits,"
    f" expires_at ON shortener_shortlink BEGIN {_sqlite_add('OLD', -1)} {_sqlite_add('NEW', 1)} END",
]
SQLITE_DROP = [f"DROP TRIGGER IF EXISTS shortener_link_tallies_{op}" for op in ("insert", "delete", "update")]
SQLITE_BACKFILL = [
    """INSERT INTO shortener_linktally (key, value)
    SELECT 'links', COUNT(*) FROM shortener_shortlink
    UNION ALL
    SELECT 'generated', COUNT(*) FROM shortener_shortlink WHERE NOT is_custom
    UNION ALL
    SELECT 'owner:' || owner_id, COUNT(*) FROM shortener_shortlink
    WHERE deleted_at IS NULL AND owner_id IS NOT NULL GROUP BY owner_id
    UNION ALL
    SELECT 'used_up', COUNT(*) FROM shortener_shortlink WHERE deleted_at IS NULL AND counter >= max_visits
    UNION ALL
    SELECT 'expires:' || strftime('%Y-%m-%d', expires_at), COUNT(*) FROM shortener_shortlink
    WHERE deleted_at IS NULL AND expires_at IS NOT NULL AND (max_visits IS NULL OR counter < max_visits)
    GROUP BY 1""",
    "DELETE FROM shortener_linktally WHERE value = 0",
]


def add_sqlite_triggers(schema_editor) -> None:
    # In a transaction (fill's, or 0016's migration's): no link is written between the backfill and the triggers.
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("DELETE FROM shortener_linktally")
        for statement in SQLITE_BACKFILL + SQLITE_TRIGGERS:
            cursor.execute(statement)


def fill(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor == "sqlite":
        with transaction.atomic(using=connection.alias):
            add_sqlite_triggers(schema_editor)
        return
    if connection.vendor != "postgresql":
        return

    # The links already there are counted a batch at a time behind the triggers' watermark, each
    # batch locking the links for a moment only (10⁶ links counted under one lock stopped their
    # writes for 10 s and more).
    def install(cursor, watermark: int | None) -> None:
        cursor.execute(functions(TRIGGER_BODY, watermark))
        if watermark == 0:
            cursor.execute(TRIGGERS)

    def count(cursor, above: int, up_to: int | None) -> None:
        add_batch(cursor, BACKFILL, BACKFILL_KEYS, above, up_to)

    count_behind_a_watermark(schema_editor, table="shortener_shortlink", install=install, count=count)


def unfill(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        with schema_editor.connection.cursor() as cursor:
            for statement in SQLITE_DROP:
                cursor.execute(statement)
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(DROP)


class Migration(migrations.Migration):
    # The counts are filled in transactions of their own (count_behind_a_watermark); the new
    # tables are empty until then, so creating them outside one transaction locks nothing in use.
    atomic = False

    dependencies = [
        ("shortener", "0009_link_tags_password_breakdowns"),
    ]

    operations = [
        migrations.CreateModel(
            name="LinkRankBucket",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("scope", models.BigIntegerField()),
                ("counter", models.BigIntegerField()),
                ("day", models.DateField()),
                ("links", models.BigIntegerField(default=0)),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("scope", "counter", "day"), name="shortener_linkrankbucket_uniq")
                ],
            },
        ),
        migrations.CreateModel(
            name="LinkTally",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("key", models.CharField(max_length=40)),
                ("value", models.BigIntegerField(default=0)),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("key",), name="shortener_linktally_key_uniq")],
            },
        ),
        migrations.RunPython(fill, unfill),
    ]
