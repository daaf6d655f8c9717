"""Ranking buckets by creation month, and a tally of links by creation day (issue 19), on PostgreSQL.

Day buckets cut 10⁶ links into ~13,000 buckets of ~76: finding a middle page summed ~6,600
bucket rows (4-7 ms), which cost more than the walk inside the bucket it found. Month buckets
are ~450 of ~2,300 links: the sum reads ~230 rows and the walk inside ~1,150 index entries,
0.5 ms in all (measured at 10⁶, docs/scale.md). The new `created:<YYYY-MM-DD>` tallies count
every link (deleted ones included) by its UTC creation day, so that a deep page of the Django
admin's list of links (newest first) starts from the day that holds its first row instead of
an OFFSET walk of half the index (shortener/services/tallies.py, created_key_at).

The triggers are migration 0010's, with the bucket key and the new tally. On PostgreSQL the
links are never locked for the whole count: for a moment the triggers stop counting buckets (the
tallies go on) and the day buckets are emptied; the bucket table is altered; then the month
buckets and the new tallies are counted a batch of links at a time behind the triggers'
watermark (common.migration_ops.count_behind_a_watermark). While that runs, the ranking pages
find their page from buckets not yet complete. SQLite keeps neither (its triggers are 0010's):
it walks the index for both, meant for up to 10⁵ links.
"""

import importlib

from django.db import migrations, models, transaction

from common.migration_ops import count_behind_a_watermark

# The previous triggers, to drop them here and to put them back when this migration is reversed.
PREVIOUS = importlib.import_module("shortener.migrations.0010_link_rank_buckets_and_tallies")

TRIGGER_BODY = """
CREATE FUNCTION shortener_link_tallies_{op}() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    emptied bigint[];
BEGIN
    -- The buckets of both rankings: every live link's, and its owner's.
    WITH changes AS ({changes}),
    live AS (
        SELECT sign, owner_id, counter, date_trunc('month', created_at AT TIME ZONE 'UTC')::date AS month
        FROM changes WHERE deleted_at IS NULL
    ),
    moved AS (
        INSERT INTO shortener_linkrankbucket AS b (scope, counter, month, links)
        SELECT scope, counter, month, SUM(sign) FROM (
            SELECT sign, 0::bigint AS scope, counter, month FROM live
            UNION ALL
            SELECT sign, owner_id, counter, month FROM live WHERE owner_id IS NOT NULL
        ) AS c
        GROUP BY scope, counter, month HAVING SUM(sign) <> 0 ORDER BY scope, counter, month
        ON CONFLICT (scope, counter, month) DO UPDATE SET links = b.links + EXCLUDED.links
        RETURNING b.id, b.links
    )
    SELECT array_agg(id) INTO emptied FROM moved WHERE links = 0;
    -- An emptied bucket goes, so the walk stays short.
    IF emptied IS NOT NULL THEN
        DELETE FROM shortener_linkrankbucket WHERE id = ANY(emptied) AND links = 0;
    END IF;

    WITH changes AS ({changes}),
    keyed AS (
        SELECT sign, 'links' AS key FROM changes
        UNION ALL
        SELECT sign, 'created:' || to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM changes
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
CREATE = PREVIOUS.functions(TRIGGER_BODY) + PREVIOUS.TRIGGERS
BACKFILL = [
    """INSERT INTO shortener_linkrankbucket (scope, counter, month, links)
    SELECT 0, counter, date_trunc('month', created_at AT TIME ZONE 'UTC')::date, COUNT(*) FROM shortener_shortlink
    WHERE deleted_at IS NULL GROUP BY 2, 3""",
    """INSERT INTO shortener_linkrankbucket (scope, counter, month, links)
    SELECT owner_id, counter, date_trunc('month', created_at AT TIME ZONE 'UTC')::date, COUNT(*)
    FROM shortener_shortlink WHERE deleted_at IS NULL AND owner_id IS NOT NULL GROUP BY 1, 2, 3""",
    """INSERT INTO shortener_linktally (key, value)
    SELECT 'created:' || to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), COUNT(*) FROM shortener_shortlink
    GROUP BY 1""",
]
BACKFILL_KEYS = ["scope, counter, month", "scope, counter, month", "key"]
PREVIOUS_BACKFILL = PREVIOUS.BACKFILL[:2]  # its buckets; its tallies are still there

# While the links already there are counted into the new buckets and `created:` tallies
# (common.migration_ops.count_behind_a_watermark), the triggers keep the earlier tallies of every
# link and the new counts of the links at or below the watermark only.
BUCKETS = "    -- The buckets of both rankings"
TALLIES = "    WITH changes AS ({changes}),\n    keyed AS"
CREATED_TALLY = "'YYYY-MM-DD') FROM changes\n        UNION ALL\n        SELECT sign, 'generated'"


def without_buckets(body: str) -> str:
    """A trigger body that keeps the tallies only (the buckets' table is being rebuilt)."""
    head, rest = body.split(BUCKETS, 1)
    return head + TALLIES + rest.split(TALLIES, 1)[1]


def guarded(body: str, watermark: int) -> str:
    """TRIGGER_BODY counting the buckets and `created:` tallies of the links at or below the watermark only."""
    first, second = body.split(TALLIES, 1)
    first = first.replace(
        "FROM changes WHERE deleted_at IS NULL", f"FROM changes WHERE deleted_at IS NULL AND id <= {watermark}"
    )
    second = second.replace(
        CREATED_TALLY, CREATED_TALLY.replace("FROM changes", f"FROM changes WHERE id <= {watermark}")
    )
    result = first + TALLIES + second
    assert result.count(f"id <= {watermark}") == (2 if BUCKETS in body else 1), result
    return result


def _tallies_only(schema_editor, body: str) -> None:
    """Stop the triggers' bucket counting and empty the buckets, the links locked for a moment (their tallies go on)."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("LOCK TABLE shortener_shortlink IN SHARE ROW EXCLUSIVE MODE")
        cursor.execute(PREVIOUS.functions(body))
        cursor.execute("DELETE FROM shortener_linkrankbucket")


def empty_day_buckets(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        # Until the month buckets are counted behind a watermark: `created:` at 0, none counted.
        _tallies_only(schema_editor, guarded(without_buckets(TRIGGER_BODY), 0))


def fill_month_buckets(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return

    def install(cursor, watermark: int | None) -> None:
        body = TRIGGER_BODY if watermark is None else guarded(TRIGGER_BODY, int(watermark))
        cursor.execute(PREVIOUS.functions(body))

    def count(cursor, above: int, up_to: int | None) -> None:
        PREVIOUS.add_batch(cursor, BACKFILL, BACKFILL_KEYS, above, up_to)

    count_behind_a_watermark(schema_editor, table="shortener_shortlink", install=install, count=count)


def empty_month_buckets(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        with transaction.atomic(using=schema_editor.connection.alias):
            _tallies_only(schema_editor, without_buckets(PREVIOUS.TRIGGER_BODY))
            with schema_editor.connection.cursor() as cursor:
                cursor.execute("DELETE FROM shortener_linktally WHERE key >= 'created:' AND key < 'created;'")


def fill_day_buckets(apps, schema_editor):
    # Reversing: the day buckets are counted again under a lock on the links (no link written
    # between the counting and the triggers' counting them again), as 0010 first did.
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute("LOCK TABLE shortener_shortlink IN SHARE ROW EXCLUSIVE MODE")
            for statement in PREVIOUS_BACKFILL:
                cursor.execute(statement)
            cursor.execute(PREVIOUS.functions(PREVIOUS.TRIGGER_BODY))


class Migration(migrations.Migration):
    # Each step commits on its own: the links are locked for a moment at a time, never for the
    # whole count (count_behind_a_watermark); the tallies are counted by a trigger throughout.
    atomic = False

    dependencies = [
        ("shortener", "0011_link_expiry_index"),
    ]

    operations = [
        migrations.RunPython(empty_day_buckets, fill_day_buckets, atomic=True),
        migrations.RemoveConstraint(model_name="linkrankbucket", name="shortener_linkrankbucket_uniq"),
        migrations.RenameField(model_name="linkrankbucket", old_name="day", new_name="month"),
        migrations.AddConstraint(
            model_name="linkrankbucket",
            constraint=models.UniqueConstraint(
                fields=("scope", "counter", "month"), name="shortener_linkrankbucket_uniq"
            ),
        ),
        migrations.RunPython(fill_month_buckets, empty_month_buckets, atomic=False),
    ]
