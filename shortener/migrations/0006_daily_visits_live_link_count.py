"""Per-day visit counts (the charts' source) and the maintained count of live links, both backfilled."""

import django.db.models.deletion
from django.db import migrations, models

# The live links' count, kept by the database itself so that no write path can forget it
# (shortener.models.LiveLinkCount). AFTER ROW: the link row is written whatever happens here.
LIVE_COUNT_FUNCTION = """
CREATE FUNCTION shortener_count_live_links() RETURNS trigger LANGUAGE plpgsql AS $$
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
CREATE TRIGGER shortener_count_live_links
AFTER INSERT OR DELETE OR UPDATE OF deleted_at ON shortener_shortlink
FOR EACH ROW EXECUTE FUNCTION shortener_count_live_links();
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
            # No link may be written between the live links' count and the trigger's start: the
            # links' table alone is locked, from here to the migration's end (the count and the trigger).
            cursor.execute("LOCK TABLE shortener_shortlink IN SHARE ROW EXCLUSIVE MODE")
            cursor.execute(
                "INSERT INTO shortener_livelinkcount (slot, live) "
                "SELECT 0, COUNT(*) FROM shortener_shortlink WHERE deleted_at IS NULL"
            )
            cursor.execute(LIVE_COUNT_FUNCTION)


def unfill(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(DROP_LIVE_COUNT_FUNCTION)


class Migration(migrations.Migration):
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
