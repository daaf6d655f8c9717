"""Per-day visit counts (the charts' source) and the maintained count of live links, both backfilled."""

import django.db.models.deletion
from django.db import migrations, models

from common.migration_ops import add_foreign_keys_not_valid, count_behind_a_watermark, id_range

# The live links' count, kept by the database itself so that no write path can forget it
# (shortener.models.LiveLinkCount). AFTER ROW: the link row is written whatever happens here.
LIVE_COUNT_FUNCTION = """
CREATE OR REPLACE FUNCTION shortener_count_live_links() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    delta integer := 0;
BEGIN
    IF TG_OP = 'INSERT' THEN
        delta := CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE 0 END;
    ELSIF TG_OP = 'DELETE' THEN
        delta := CASE WHEN OLD.deleted_at IS NULL THEN -1 ELSE 0 END;
    ELSIF (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL) THEN
        delta := CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END;
    END IF;
    IF delta <> 0 THEN
        INSERT INTO shortener_livelinkcount (slot, live) VALUES (pg_backend_pid() % 16, delta)
        ON CONFLICT (slot) DO UPDATE SET live = shortener_livelinkcount.live + EXCLUDED.live;
    END IF;
    RETURN NULL;
END
$$;
"""
LIVE_COUNT_TRIGGER = """
CREATE TRIGGER shortener_count_live_links
AFTER INSERT OR DELETE OR UPDATE OF deleted_at ON shortener_shortlink
FOR EACH ROW EXECUTE FUNCTION shortener_count_live_links();
"""
# While the links already there are counted (common.migration_ops.count_behind_a_watermark), the
# trigger skips the links above the watermark: the counting reaches them later.
GUARD = """BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.id > {watermark} THEN RETURN NULL; END IF;
    ELSIF NEW.id > {watermark} THEN
        RETURN NULL;
    END IF;
"""
DROP_LIVE_COUNT_FUNCTION = """
DROP TRIGGER IF EXISTS shortener_count_live_links ON shortener_shortlink;
DROP FUNCTION IF EXISTS shortener_count_live_links();
"""


def backfill(apps, schema_editor):
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        # The visits' sums first, under no lock: the visits written meanwhile (and after, until the
        # new code runs) are not in them either way, since only the new code adds to DailyVisits.
        # Locking shortener_visit for them stopped every visit's write for 27 s at 10⁶ visits.
        cursor.execute(
            "INSERT INTO shortener_dailyvisits (link_id, day, visits) "
            "SELECT link_id, day, COUNT(*) FROM shortener_visit GROUP BY link_id, day"
        )
        cursor.execute(
            "INSERT INTO shortener_sitedailyvisits (day, visits) SELECT day, COUNT(*) FROM shortener_visit GROUP BY day"
        )
    if connection.vendor == "postgresql":
        # A link deleted since its visits were summed leaves sums of a link that is no more.
        add_foreign_keys_not_valid(
            schema_editor,
            "shortener_dailyvisits",
            then="DELETE FROM shortener_dailyvisits d "
            "WHERE NOT EXISTS (SELECT 1 FROM shortener_shortlink l WHERE l.id = d.link_id)",
        )
        # The live links are counted a batch at a time behind the trigger's watermark, each batch
        # locking the links for a moment only (10⁶ links counted under one lock stopped their
        # writes for 27 s).
        count_behind_a_watermark(schema_editor, table="shortener_shortlink", install=install, count=count_live)


def install(cursor, watermark: int | None) -> None:
    if watermark is None:
        cursor.execute(LIVE_COUNT_FUNCTION)
        return
    guarded = LIVE_COUNT_FUNCTION.replace("BEGIN\n", GUARD.format(watermark=int(watermark)), 1)
    assert guarded != LIVE_COUNT_FUNCTION
    cursor.execute(guarded)
    if watermark == 0:
        cursor.execute(LIVE_COUNT_TRIGGER)


def count_live(cursor, above: int, up_to: int | None) -> None:
    # Slot 0 is there even when no link is live, as it was when one statement counted them all.
    cursor.execute(
        "INSERT INTO shortener_livelinkcount (slot, live) "
        f"SELECT 0, COUNT(*) FROM shortener_shortlink WHERE deleted_at IS NULL AND {id_range(above, up_to)} "
        "ON CONFLICT (slot) DO UPDATE SET live = shortener_livelinkcount.live + EXCLUDED.live"
    )


def unfill(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(DROP_LIVE_COUNT_FUNCTION)


class Migration(migrations.Migration):
    # The live links' count is filled in transactions of its own (count_behind_a_watermark); the
    # new tables are empty, so creating them outside one transaction locks nothing that is used.
    atomic = False

    dependencies = [
        ("shortener", "0005_link_lifetime"),
    ]

    operations = [
        migrations.CreateModel(
            name="DailyVisits",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("day", models.DateField()),
                ("visits", models.PositiveBigIntegerField(default=0)),
                (
                    "link",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="shortener.shortlink",
                    ),
                ),
            ],
            options={
                "verbose_name_plural": "daily visits",
                "constraints": [
                    models.UniqueConstraint(fields=("link", "day"), name="shortener_dailyvisits_link_day_uniq"),
                ],
                "indexes": [models.Index(fields=["day"], name="shortener_dailyvisits_day_idx")],
            },
        ),
        migrations.CreateModel(
            name="LiveLinkCount",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("slot", models.PositiveSmallIntegerField()),
                ("live", models.BigIntegerField(default=0)),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("slot",), name="shortener_livelinkcount_slot_uniq")],
            },
        ),
        migrations.CreateModel(
            name="SiteDailyVisits",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("day", models.DateField()),
                ("visits", models.PositiveBigIntegerField(default=0)),
            ],
            options={
                "verbose_name_plural": "site daily visits",
                "constraints": [models.UniqueConstraint(fields=("day",), name="shortener_sitedailyvisits_day_uniq")],
            },
        ),
        migrations.RunPython(backfill, unfill),
    ]
