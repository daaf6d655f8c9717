"""The counts that shortener's migrations fill while links and visits are written (issue 45).

0006 (the live links' count), 0010 (ranking buckets and tallies) and 0012 (month buckets, day
tallies) start their triggers behind a watermark and count the links already there a batch at a
time, each batch locking the links for a moment only (common.migration_ops,
count_behind_a_watermark). Here each runs forward on PostgreSQL in batches of 50 ids while
another connection inserts, soft-deletes, restores, deletes and visits links, old and new,
below and above the watermark; then every count must equal a recount from the links
themselves, as the one locked statement used to make it.
"""

import random
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections, transaction
from django.db.migrations.executor import MigrationExecutor

from common import migration_ops

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SEEDED = 600  # links there before the migration: 12 batches of 50 ids


def migrate(targets) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor


def recount(sql: str) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return sorted(cursor.fetchall())


class Writer(threading.Thread):
    """Writes links and visits through the models of the schema before the migration, until stopped."""

    def __init__(self, apps, owners: list[int]) -> None:
        super().__init__(daemon=True)
        self.links = apps.get_model("shortener", "ShortLink")
        self.visits = apps.get_model("shortener", "Visit")
        self.owners = owners
        self.stop = threading.Event()
        self.writes = 0
        self.error: BaseException | None = None
        self.random = random.Random(45)
        self.deleted = 0

    def some_ids(self, n: int) -> list[int]:
        ids = list(self.links.objects.values_list("id", flat=True))
        return self.random.sample(ids, min(n, len(ids)))

    def step(self) -> None:
        links, now, choice = self.links.objects, datetime.now(UTC), self.random.randrange(6)
        if choice == 0:  # several links in one statement (the statement triggers see them together)
            links.bulk_create(
                [new_link(self.links, self.random, self.owners) for _ in range(self.random.randint(1, 5))]
            )
        elif choice == 1:
            links.filter(id__in=self.some_ids(3), deleted_at__isnull=True).update(deleted_at=now)
        elif choice == 2:
            links.filter(id__in=self.some_ids(3), deleted_at__isnull=False).update(deleted_at=None)
        elif choice == 3:
            self.delete(self.some_ids(2))
        elif choice == 4:
            ids = self.some_ids(4)
            links.filter(id__in=ids).update(counter=self.random.randint(0, 3))
            self.visits.objects.bulk_create(
                [self.visits(link_id=i, visitor=f"v{self.writes}-{i}", day=now.date()) for i in ids]
            )
        else:
            self.visits.objects.filter(link_id__in=self.some_ids(3)).delete()
        self.writes += 1

    def delete(self, ids: list[int]) -> None:
        # As the code after 0006 does: a link goes with its daily visits (the models before 0006
        # know nothing of them), the visits first, as Django's cascade deletes them. That is the
        # order in which 0006's ADD FOREIGN KEY locks the two tables, so neither waits on the
        # other in a circle (the link first deadlocked with it); the visits summed meanwhile are
        # 0006's to remove.
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT to_regclass('shortener_dailyvisits') IS NOT NULL")
            if cursor.fetchone()[0]:
                cursor.execute("DELETE FROM shortener_dailyvisits WHERE link_id = ANY(%s)", [ids])
            self.links.objects.filter(id__in=ids).delete()
            self.deleted += len(ids)

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                self.step()
        except BaseException as exc:  # the test asserts on it
            self.error = exc
        finally:
            connections.close_all()


def new_link(model, rng: random.Random, owners: list[int]):
    created = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=rng.randrange(60), hours=rng.randrange(24))
    return model(
        code=f"m{rng.getrandbits(48):x}",
        url="https://example.com/",
        url_digest=f"{rng.getrandbits(256):064x}",
        owner_id=rng.choice([*owners, None]),
        is_custom=rng.random() < 0.3,
        counter=rng.randrange(4),
        created_at=created,
        deleted_at=created if rng.random() < 0.2 else None,
        expires_at=created + timedelta(days=rng.randrange(1, 5)) if rng.random() < 0.3 else None,
        max_visits=rng.choice([None, None, 1, 2, 3]),
    )


def run_forward_while_writing(monkeypatch, before: tuple[str, str], migration: tuple[str, str]) -> Writer:
    """Revert to `before`, seed links and visits, then apply `migration` while a Writer writes."""
    monkeypatch.setattr(migration_ops, "WATERMARK_BATCH", 50)
    owners = [get_user_model().objects.create_user(f"owner{n}", password="x").pk for n in range(3)]
    executor = migrate([before])
    apps = executor.loader.project_state(before).apps
    rng = random.Random(7)
    links = apps.get_model("shortener", "ShortLink")
    links.objects.bulk_create([new_link(links, rng, owners) for _ in range(SEEDED)])
    writer = Writer(apps, owners)
    writer.start()
    try:
        while writer.writes < 20 and writer.is_alive():  # writing before the migration starts too
            writer.stop.wait(0.01)
        migrate([migration])
    finally:
        writer.stop.set()
        writer.join()
    assert writer.error is None, writer.error
    assert writer.writes > 20
    return writer


@pytest.fixture
def back_to_the_leaves():
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    yield
    migrate(leaves)


def test_0006_counts_the_live_links_exactly_while_they_are_written(monkeypatch, back_to_the_leaves):
    writer = run_forward_while_writing(
        monkeypatch, ("shortener", "0005_link_lifetime"), ("shortener", "0006_daily_visits_live_link_count")
    )
    assert writer.deleted > 0
    # The daily visits' foreign key was validated: no sums are left of a link deleted meanwhile.
    assert recount(
        "SELECT convalidated FROM pg_constraint WHERE conrelid = 'shortener_dailyvisits'::regclass AND contype = 'f'"
    ) == [(True,)]

    live = recount("SELECT COUNT(*) FROM shortener_shortlink WHERE deleted_at IS NULL")
    assert recount("SELECT SUM(live) FROM shortener_livelinkcount") == live
    assert live[0][0] > 0
    # Slot 0 holds the links counted by the migration, as when one statement counted them.
    assert recount("SELECT COUNT(*) FROM shortener_livelinkcount WHERE slot = 0") == [(1,)]


BUCKETS_BY_DAY = """
SELECT scope, counter, day, SUM(links) FROM (
    SELECT 0 AS scope, counter, (created_at AT TIME ZONE 'UTC')::date AS day, COUNT(*) AS links
    FROM shortener_shortlink WHERE deleted_at IS NULL GROUP BY 2, 3
    UNION ALL
    SELECT owner_id, counter, (created_at AT TIME ZONE 'UTC')::date, COUNT(*)
    FROM shortener_shortlink WHERE deleted_at IS NULL AND owner_id IS NOT NULL GROUP BY 1, 2, 3
) AS c GROUP BY 1, 2, 3
"""
TALLIES = """
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
GROUP BY 1
"""


def test_0010_counts_the_buckets_and_tallies_exactly_while_links_are_written(monkeypatch, back_to_the_leaves):
    run_forward_while_writing(
        monkeypatch,
        ("shortener", "0009_link_tags_password_breakdowns"),
        ("shortener", "0010_link_rank_buckets_and_tallies"),
    )

    buckets = recount("SELECT scope, counter, day, links FROM shortener_linkrankbucket")
    assert buckets == recount(BUCKETS_BY_DAY)
    assert len(buckets) > 50
    tallies = recount("SELECT key, value FROM shortener_linktally")
    assert tallies == recount(TALLIES)
    assert {key.split(":")[0] for key, _ in tallies} == {"links", "generated", "owner", "used_up", "expires"}


BUCKETS_BY_MONTH = BUCKETS_BY_DAY.replace(
    "(created_at AT TIME ZONE 'UTC')::date", "date_trunc('month', created_at AT TIME ZONE 'UTC')::date"
)
CREATED_TALLIES = """
SELECT 'created:' || to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), COUNT(*) FROM shortener_shortlink GROUP BY 1
"""


def test_0012_counts_the_month_buckets_and_day_tallies_exactly_while_links_are_written(monkeypatch, back_to_the_leaves):
    run_forward_while_writing(
        monkeypatch, ("shortener", "0011_link_expiry_index"), ("shortener", "0012_month_rank_buckets_and_day_tallies")
    )

    buckets = recount("SELECT scope, counter, month, links FROM shortener_linkrankbucket")
    assert buckets == recount(BUCKETS_BY_MONTH)
    assert {month.day for _, _, month, _ in buckets} == {1}
    tallies = recount("SELECT key, value FROM shortener_linktally")
    assert tallies == recount(f"{TALLIES} UNION ALL {CREATED_TALLIES}")
    assert len([key for key, _ in tallies if key.startswith("created:")]) > 30

    # Reversed, the day buckets are counted again and the tallies go on as 0010 left them.
    migrate([("shortener", "0011_link_expiry_index")])
    assert recount("SELECT scope, counter, day, links FROM shortener_linkrankbucket") == recount(BUCKETS_BY_DAY)
    assert recount("SELECT key, value FROM shortener_linktally") == recount(TALLIES)


LOWEST = "SELECT MIN(id) FROM shortener_shortlink"
HIGHEST = "SELECT MAX(id) FROM shortener_shortlink"


def test_0010_waits_out_a_long_write_without_holding_the_writers_behind_it(monkeypatch, back_to_the_leaves):
    """A write transaction open for 3 s: the batches' lock is given up after 1 s and asked for again."""
    monkeypatch.setattr(migration_ops, "LOCK_WAIT", "200ms")
    before = ("shortener", "0009_link_tags_password_breakdowns")
    holding, released = threading.Event(), threading.Event()
    waits: list[float] = []

    def long_write():
        try:
            with connections["default"].cursor() as cursor:
                cursor.execute("BEGIN")
                cursor.execute(f"UPDATE shortener_shortlink SET deleted_at = now() WHERE id = ({LOWEST})")
                holding.set()
                released.wait(3)
                cursor.execute("COMMIT")
        finally:
            connections.close_all()

    def short_writes():
        try:
            holding.wait(10)
            with connections["default"].cursor() as cursor:
                while not released.is_set():
                    started = time.monotonic()
                    cursor.execute(f"UPDATE shortener_shortlink SET counter = counter + 1 WHERE id = ({HIGHEST})")
                    waits.append(time.monotonic() - started)
                    time.sleep(0.01)
        finally:
            connections.close_all()

    executor = migrate([before])
    apps = executor.loader.project_state(before).apps
    links = apps.get_model("shortener", "ShortLink")
    rng = random.Random(3)
    links.objects.bulk_create([new_link(links, rng, []) for _ in range(SEEDED)])
    threads = [threading.Thread(target=long_write), threading.Thread(target=short_writes)]
    for thread in threads:
        thread.start()
    holding.wait(10)
    timer = threading.Timer(3, released.set)
    timer.start()
    migrate([("shortener", "0010_link_rank_buckets_and_tallies")])
    released.set()
    for thread in threads:
        thread.join()

    assert recount("SELECT scope, counter, day, links FROM shortener_linkrankbucket") == recount(BUCKETS_BY_DAY)
    assert recount("SELECT key, value FROM shortener_linktally") == recount(TALLIES)
    # The short writes waited for the lock's tries (200 ms each), never for the long write's 3 s.
    assert waits and max(waits) < 1.5, max(waits)
