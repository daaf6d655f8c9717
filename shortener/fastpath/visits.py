"""The visit buffer: visitors already seen today, and new visits written in batches.

Each process keeps its new visits in a buffer that a background thread flushes every
SHORTENER_VISIT_FLUSH_SECONDS (and at exit), in one transaction per batch, written by a
writer process of its own (visit_writer.py; by the thread itself at exit, or with
SHORTENER_VISIT_WRITER_PROCESS=0). The redirect
then never waits for the database, and a thousand visits cost about what one did. The
(link, visitor, day) unique constraint stays the authority, so visits buffered twice (two
processes, or a retried batch) still count once. With SHORTENER_VISIT_FLUSH_SECONDS=0 each
visit is written during its request instead. What counts as a visit, and who the visitor
is, are the domain's rules: shortener/services/visits.py.
"""

import atexit
import datetime
import logging
import os
import re
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Iterator, Mapping
from itertools import repeat

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone

from common import metrics
from shortener.fastpath.bounded import bounded_set
from shortener.fastpath.links import EXPIRED, GONE, USED_UP, bump_links_version
from shortener.fastpath.visit_writer import VisitWriterProcess, WriterGone
from shortener.models import DailyVisits, ShortLink, SiteDailyVisits, Visit, VisitBreakdown
from shortener.services.breakdowns import BOTS, NO_DETAILS, VisitDetails, bot_name, breakdown_names
from shortener.services.visits import BotKey, VisitKey

logger = logging.getLogger(__name__)

VISIT_TABLE = Visit._meta.db_table
LINK_TABLE = ShortLink._meta.db_table
DAILY_TABLE = DailyVisits._meta.db_table
SITE_DAILY_TABLE = SiteDailyVisits._meta.db_table
BREAKDOWN_TABLE = VisitBreakdown._meta.db_table


# Both writers, in one transaction: the Visit rows (the unique constraint decides which are new),
# the links' counters, the per-day counts the charts read (DailyVisits per link, SiteDailyVisits
# for all) and the per-day breakdowns (VisitBreakdown: one row per dimension and name, with the
# robots' requests apart), so that the counters, the charts, the breakdowns and the Visit rows
# always agree. On PostgreSQL rows are locked in one order, by both writers and count_limited_visit:
# the visits', then the breakdowns' (link, day, dimension, name), then links by id, then (link, day),
# then the site's day, so that two transactions cannot deadlock, and the rows every writer shares (the
# links' ranking buckets, kept by a trigger on the links, and the site's day) are held for the
# least time: taken first, they queued every counted visit behind the whole transaction. A flush
# that brings a link with max_visits to its limit bumps LinkCacheVersion (in its transaction), so
# every process reads that link's counter again and stops redirecting.
def _breakdown(
    new_visits: list[VisitKey], details: Mapping[VisitKey, VisitDetails], bots: Mapping[BotKey, int]
) -> Counter[tuple[int, datetime.date, str, str]]:
    rows: Counter[tuple[int, datetime.date, str, str]] = Counter()
    for visit in new_visits:
        for dimension, name in breakdown_names(details.get(visit, NO_DETAILS)):
            rows[visit[0], visit[2], dimension, name] += 1
    for (link_id, day, user_agent), count in bots.items():
        rows[link_id, day, BOTS, bot_name(user_agent)] += count
    return rows


def _breakdown_columns(
    new_visits: list[VisitKey], details: Mapping[VisitKey, VisitDetails], bots: Mapping[BotKey, int]
) -> list[list]:
    """The breakdowns as columns for PostgreSQL to sum (what _breakdown sums in Python).

    A row per new visit and per robot's (link, day, User-Agent), naming one of the batch's few
    distinct sets of (dimension, name) pairs, then those sets' pairs. The per-visit columns are
    built by map() over C functions (the cached breakdown_names included), not by a Python loop:
    where the writer runs in a thread of the web process (at exit, and with
    SHORTENER_VISIT_WRITER_PROCESS=0), a Python loop holds the GIL in 5 ms slices that the event
    loop serving the redirects waits behind (bench/README.md, "The flusher's Python time"), where
    a C call holds it once, for well under a millisecond.
    """
    link_ids, _visitors, days = (
        (list(column) for column in zip(*new_visits, strict=True)) if new_visits else ([], [], [])
    )
    names = list(map(breakdown_names, map(details.get, new_visits, repeat(NO_DETAILS))))
    counts = [1] * len(new_visits)
    for (link_id, day, user_agent), count in bots.items():  # a robot's row per (link, day, User-Agent): few
        link_ids.append(link_id)
        days.append(day)
        names.append(((BOTS, bot_name(user_agent)),))
        counts.append(count)
    sets = {names_set: set_id for set_id, names_set in enumerate(dict.fromkeys(names))}
    set_ids = list(map(sets.__getitem__, names))
    named = [(set_id, dimension, name) for names_set, set_id in sets.items() for dimension, name in names_set]
    return [link_ids, days, set_ids, counts, *(list(column) for column in zip(*named, strict=True))]


# Django binds parameters on the client, as text, and psycopg writes a list's elements one by
# one in Python, quoting each: for a batch's 60,000 elements that was most of the flusher's CPU
# time, during which it holds the GIL its process's request threads need (bench/visit_batch.py).
# A column of numbers or dates, or of plain strings (hex visitors), is written as one array
# literal by str.join instead; strings that would need quoting fall back to psycopg's.
_PLAIN_STRINGS = re.compile(r"[0-9A-Za-z_.:-]+(?:,[0-9A-Za-z_.:-]+)*")
_NULL_STRING = re.compile(r"(?:^|,)null(?:,|$)", re.IGNORECASE)  # unquoted, NULL is a null


def _array(values: list[int] | list[datetime.date] | list[str]) -> str | list:
    if values and isinstance(values[0], str):
        text = ",".join(values)
        if not _PLAIN_STRINGS.fullmatch(text) or _NULL_STRING.search(text):
            return values
    else:
        text = ",".join(map(str, values))
    return "{" + text + "}"


def _write_postgresql(
    visits: list[VisitKey], details: Mapping[VisitKey, VisitDetails], bots: Mapping[BotKey, int]
) -> Counter[tuple[int, datetime.date]]:
    # Every per-visit step below is a C call (zip, map, Counter, sorted, str.join), for the GIL's
    # sake (_breakdown_columns says why), and the GIL is handed over between statements.
    new: Counter[tuple[int, datetime.date]] = Counter()
    new_visits: list[VisitKey] = []
    new_links: tuple[int, ...] = ()
    new_days: tuple[datetime.date, ...] = ()
    with connection.cursor() as cursor:
        if visits:
            link_ids, visitors, days = (list(column) for column in zip(*visits, strict=True))
            cursor.execute(
                f"INSERT INTO {VISIT_TABLE} (link_id, visitor, day) "
                "SELECT * FROM unnest(%s::bigint[], %s::varchar[], %s::date[]) "
                "ON CONFLICT DO NOTHING RETURNING link_id, visitor, day",
                [_array(link_ids), _array(visitors), _array(days)],
            )
            new_visits = cursor.fetchall()  # tuples, as the keys of `details`
            if new_visits:
                new_links, _visitors, new_days = zip(*new_visits, strict=True)
                new = Counter(zip(new_links, new_days, strict=True))
            _let_requests_run()
        if new_visits or bots:
            cursor.execute(
                f"INSERT INTO {BREAKDOWN_TABLE} (link_id, day, dimension, name, visits) "
                "SELECT visit.link_id, visit.day, named.dimension, named.name, SUM(visit.n) "
                "FROM unnest(%s::bigint[], %s::date[], %s::int[], %s::bigint[]) AS visit(link_id, day, names, n) "
                "JOIN unnest(%s::int[], %s::varchar[], %s::varchar[]) AS named(names, dimension, name) USING (names) "
                "GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4 "
                "ON CONFLICT (link_id, day, dimension, name) "
                f"DO UPDATE SET visits = {BREAKDOWN_TABLE}.visits + EXCLUDED.visits",
                [_array(column) for column in _breakdown_columns(new_visits, details, bots)],
            )
            _let_requests_run()
        links = Counter(new_links)
        ids = sorted(links)
        if len(ids) > 1:
            cursor.execute(
                f"SELECT id FROM {LINK_TABLE} WHERE id = ANY(%s::bigint[]) ORDER BY id FOR NO KEY UPDATE", [_array(ids)]
            )
        if ids:
            cursor.execute(
                f"UPDATE {LINK_TABLE} AS link SET counter = link.counter + new.n "
                "FROM unnest(%s::bigint[], %s::bigint[]) AS new(id, n) WHERE link.id = new.id "
                "RETURNING link.max_visits IS NOT NULL AND link.counter >= link.max_visits",
                [_array(ids), _array(list(map(links.__getitem__, ids)))],
            )
            used_up = any(used_up for (used_up,) in cursor.fetchall())
            _let_requests_run()
            keys = sorted(new)
            key_links, key_days = zip(*keys, strict=True)
            cursor.execute(
                f"INSERT INTO {DAILY_TABLE} (link_id, day, visits) "
                "SELECT * FROM unnest(%s::bigint[], %s::date[], %s::bigint[]) "
                f"ON CONFLICT (link_id, day) DO UPDATE SET visits = {DAILY_TABLE}.visits + EXCLUDED.visits",
                [_array(list(key_links)), _array(list(key_days)), _array(list(map(new.__getitem__, keys)))],
            )
            site = Counter(new_days)
            site_days = sorted(site)
            cursor.execute(
                f"INSERT INTO {SITE_DAILY_TABLE} (day, visits) SELECT * FROM unnest(%s::date[], %s::bigint[]) "
                f"ON CONFLICT (day) DO UPDATE SET visits = {SITE_DAILY_TABLE}.visits + EXCLUDED.visits",
                [_array(site_days), _array([site[day] for day in site_days])],
            )
            if used_up:
                bump_links_version()
    return new


def _let_requests_run() -> None:
    """Hand the GIL to a waiting thread (the event loop, a request thread) before the next step.

    Otherwise this thread keeps it until the interpreter's 5 ms switch interval takes it away,
    each time the event loop let go of it for a system call.
    """
    time.sleep(0)


# Rows per statement on SQLite: 5 parameters a row (a breakdown's) stays far below its 32,766 variables.
SQLITE_BATCH_ROWS = 500


def _batches[T](rows: list[T]) -> Iterator[list[T]]:
    for start in range(0, len(rows), SQLITE_BATCH_ROWS):
        yield rows[start : start + SQLITE_BATCH_ROWS]


def _write_generic(
    visits: list[VisitKey], details: Mapping[VisitKey, VisitDetails], bots: Mapping[BotKey, int]
) -> Counter[tuple[int, datetime.date]]:
    """SQLite: the same writes in multi-row statements, 500 rows each.

    One statement per visit held SQLite's single write lock for the whole batch (a thousand
    statements, each taking the GIL back from the request threads), and every paste read and
    counted visit of every process waited behind it; a few statements per batch do not.
    """
    adapt = connection.ops.adapt_datefield_value
    days = {adapt(day): day for day in {visit[2] for visit in visits}}
    new: Counter[tuple[int, datetime.date]] = Counter()
    new_visits: list[VisitKey] = []
    used_up = False
    with connection.cursor() as cursor:
        for batch in _batches(visits):
            # RETURNING (SQLite 3.35+) names the rows that were new; ON CONFLICT skips the others.
            cursor.execute(
                f"INSERT INTO {VISIT_TABLE} (link_id, visitor, day) VALUES "
                + ", ".join(["(%s, %s, %s)"] * len(batch))
                + " ON CONFLICT DO NOTHING RETURNING link_id, visitor, day",
                [value for link_id, visitor, day in batch for value in (link_id, visitor, adapt(day))],
            )
            for link_id, visitor, day in cursor.fetchall():
                new[link_id, days[str(day)]] += 1
                new_visits.append((link_id, visitor, days[str(day)]))
        links = sorted(_per_link(new).items())
        for batch in _batches(links):
            # UPDATE … FROM (SQLite 3.33+); a VALUES list's columns are column1, column2.
            cursor.execute(
                f"UPDATE {LINK_TABLE} SET counter = counter + new.column2 FROM (VALUES "
                + ", ".join(["(%s, %s)"] * len(batch))
                + f") AS new WHERE {LINK_TABLE}.id = new.column1 "
                "RETURNING max_visits IS NOT NULL AND counter >= max_visits",
                [value for link in batch for value in link],
            )
            used_up = any(row[0] for row in cursor.fetchall()) or used_up
        for batch in _batches(sorted(new.items())):
            cursor.execute(
                f"INSERT INTO {DAILY_TABLE} (link_id, day, visits) VALUES "
                + ", ".join(["(%s, %s, %s)"] * len(batch))
                + f" ON CONFLICT (link_id, day) DO UPDATE SET visits = {DAILY_TABLE}.visits + excluded.visits",
                [value for (link_id, day), count in batch for value in (link_id, adapt(day), count)],
            )
        for day, count in sorted(_per_day(new).items()):
            cursor.execute(
                f"INSERT INTO {SITE_DAILY_TABLE} (day, visits) VALUES (%s, %s) "
                f"ON CONFLICT (day) DO UPDATE SET visits = {SITE_DAILY_TABLE}.visits + excluded.visits",
                [adapt(day), count],
            )
        for batch in _batches(sorted(_breakdown(new_visits, details, bots).items())):
            cursor.execute(
                f"INSERT INTO {BREAKDOWN_TABLE} (link_id, day, dimension, name, visits) VALUES "
                + ", ".join(["(%s, %s, %s, %s, %s)"] * len(batch))
                + " ON CONFLICT (link_id, day, dimension, name) "
                f"DO UPDATE SET visits = {BREAKDOWN_TABLE}.visits + excluded.visits",
                [value for key, count in batch for value in (key[0], adapt(key[1]), key[2], key[3], count)],
            )
    if used_up:
        bump_links_version()
    return new


def _add_visit_breakdowns(cursor, link_id: int, day: object, details: VisitDetails) -> None:
    """One visit's breakdown rows, in one statement (in key order, as the batch writer locks them)."""
    names = sorted(breakdown_names(details))
    cursor.execute(
        f"INSERT INTO {BREAKDOWN_TABLE} (link_id, day, dimension, name, visits) VALUES "
        + ", ".join(["(%s, %s, %s, %s, 1)"] * len(names))
        + f" ON CONFLICT (link_id, day, dimension, name) DO UPDATE SET visits = {BREAKDOWN_TABLE}.visits + 1",
        [value for dimension, name in names for value in (link_id, day, dimension, name)],
    )


def _add_to_days(cursor, link_id: int, day: object) -> None:
    cursor.execute(
        f"INSERT INTO {DAILY_TABLE} (link_id, day, visits) VALUES (%s, %s, 1) "
        f"ON CONFLICT (link_id, day) DO UPDATE SET visits = {DAILY_TABLE}.visits + 1",
        [link_id, day],
    )
    cursor.execute(
        f"INSERT INTO {SITE_DAILY_TABLE} (day, visits) VALUES (%s, 1) "
        f"ON CONFLICT (day) DO UPDATE SET visits = {SITE_DAILY_TABLE}.visits + 1",
        [day],
    )


def _per_link(new: Counter[tuple[int, datetime.date]]) -> Counter[int]:
    links: Counter[int] = Counter()
    for (link_id, _day), count in new.items():
        links[link_id] += count
    return links


def _per_day(new: Counter[tuple[int, datetime.date]]) -> Counter[datetime.date]:
    days: Counter[datetime.date] = Counter()
    for (_link_id, day), count in new.items():
        days[day] += count
    return days


def _write(
    visits: list[VisitKey], details: Mapping[VisitKey, VisitDetails], bots: Mapping[BotKey, int], *, wait_for_wal: bool
) -> int:
    """Insert the visits' rows and add the new ones to their links' counters and per-day counts, in one transaction."""
    write = _write_postgresql if connection.vendor == "postgresql" else _write_generic
    with transaction.atomic():
        if not wait_for_wal and connection.vendor == "postgresql":
            # A database crash may then lose the last fraction of a second of visits,
            # which a visit counter can afford; waiting for the WAL flush per visit cannot.
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
        return sum(write(sorted(visits), details, bots).values())


def write_visits(
    visits: list[VisitKey],
    *,
    wait_for_wal: bool,
    details: Mapping[VisitKey, VisitDetails] | None = None,
    bots: Mapping[BotKey, int] | None = None,
) -> int:
    """Write the visits now; return how many were new. Visits of links removed meanwhile are dropped.

    `details`: what each visit's request told (services/breakdowns.py; a visit without is
    "Unknown" everywhere); `bots`: robots' requests per (link, day, User-Agent), counted apart.
    """
    details = details or {}
    bots = bots or {}
    try:
        return _write(visits, details, bots, wait_for_wal=wait_for_wal)
    except IntegrityError:
        # A link was removed from the database since its visit: count the others.
        link_ids = {visit[0] for visit in visits} | {bot[0] for bot in bots}
        live = set(ShortLink.objects.filter(pk__in=link_ids).values_list("pk", flat=True))
        kept = [visit for visit in visits if visit[0] in live]
        kept_bots = {key: count for key, count in bots.items() if key[0] in live}
        if not kept and not kept_bots:
            return 0
        return _write(kept, details, kept_bots, wait_for_wal=wait_for_wal)


class VisitBuffer:
    """New visits of this process, waiting for the next flush."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # One flush at a time: a flush at exit must not overtake the background one.
        self._flush_lock = threading.Lock()
        self._pending: dict[VisitKey, VisitDetails] = {}
        # Robots' requests, counted apart (never visits): (link, day, User-Agent) -> requests.
        self._bots: Counter[BotKey] = Counter()
        # Visits put back in the buffer by a failed flush, already counted as buffered (metrics).
        self._counted_back = 0
        self._flusher_pid: int | None = None
        self._flusher: threading.Thread | None = None
        self._writer: VisitWriterProcess | None = None
        self._stopping = threading.Event()
        # False: no flusher thread is started (fastpath.isolated(), for tests).
        self.background = True

    def add(self, visit: VisitKey, details: VisitDetails = NO_DETAILS) -> None:
        with self._lock:
            self._pending[visit] = details
            self._start_once()

    def add_bot(self, bot: BotKey) -> None:
        with self._lock:
            self._bots[bot] += 1
            self._start_once()

    def start(self) -> None:
        """Once per process: start the background flusher."""
        if self._flusher_pid == os.getpid():
            return  # the common case, on every redirect: no lock
        with self._lock:
            self._start_once()

    def _start_once(self) -> None:
        # Per process: a worker forked from a parent that had started a flusher has none.
        if self.background and self._flusher_pid != os.getpid():
            self._flusher_pid = os.getpid()
            self.start_flusher()

    def start_flusher(self) -> None:
        self._writer = VisitWriterProcess() if settings.SHORTENER_VISIT_WRITER_PROCESS else None
        self._flusher = threading.Thread(target=self._run, name="shortener-visit-flusher", daemon=True)
        self._flusher.start()
        atexit.register(self.stop)

    def _run(self) -> None:
        if self._writer is not None:
            self._writer.start()
        while not self._stopping.wait(settings.SHORTENER_VISIT_FLUSH_SECONDS):
            try:
                self.flush(self._writer)
            except Exception:
                # The batch went back into the buffer; the next round retries it.
                logger.exception("Could not write the buffered visits; retrying in the next round.")
                connection.close()
        connection.close()

    def stop(self) -> None:
        """Stop the background flusher and write what is left (at exit)."""
        self._stopping.set()
        if self._flusher is not None and self._flusher is not threading.current_thread():
            self._flusher.join(timeout=10)
        if self._writer is not None:
            self._writer.close()
        try:
            self.flush()
        except Exception:
            logger.exception("Could not write the buffered visits at exit; they are lost.")
            if settings.METRICS_TOKEN:
                metrics.VISITS_LOST.inc(len(self._pending))

    def flush(self, writer: VisitWriterProcess | None = None) -> int:
        """Write the pending visits now (through `writer`, if given); return how many of them were new (counted)."""
        with self._flush_lock:
            with self._lock:
                pending, self._pending = self._pending, {}
                bots, self._bots = self._bots, Counter()
            if not pending and not bots:
                return 0
            if settings.METRICS_TOKEN:
                # Counted here rather than per visit, off the redirect's path; a batch put back after
                # a failure was counted when first taken.
                metrics.VISITS_BUFFERED.inc(max(0, len(pending) - self._counted_back))
            self._counted_back = 0
            try:
                new = None
                if writer is not None:
                    try:
                        new = writer.write(pending, bots)
                    except WriterGone:
                        logger.warning("The visit writer process exited; this batch is written here.", exc_info=True)
                if new is None:
                    new = write_visits(list(pending), wait_for_wal=True, details=pending, bots=bots)
                if settings.METRICS_TOKEN:
                    metrics.VISITS_FLUSHED.inc(len(pending))
                return new
            except DatabaseError:
                with self._lock:
                    self._pending = pending | self._pending
                    self._bots.update(bots)
                self._counted_back = len(pending)
                raise

    def discard(self) -> None:
        with self._lock:
            self._pending = {}
            self._bots = Counter()


buffer = VisitBuffer()


class SeenVisits:
    """Visits this process has already passed on today: repeat visitors stop here, in memory.

    Only a shortcut: what it forgets (other processes, eviction beyond
    SHORTENER_CACHE_MAX_ENTRIES, a restart) the unique constraint still catches.
    """

    def __init__(self) -> None:
        self._seen: OrderedDict[VisitKey, None] = OrderedDict()

    def first_time(self, visit: VisitKey) -> bool:
        if visit in self._seen:
            return False
        self.remember(visit)
        return True

    def known(self, visit: VisitKey) -> bool:
        return visit in self._seen

    def remember(self, visit: VisitKey) -> None:
        bounded_set(self._seen, visit, None, limit=settings.SHORTENER_CACHE_MAX_ENTRIES)

    def clear(self) -> None:
        self._seen.clear()


seen = SeenVisits()


def count_limited_visit(link_id: int, visit: VisitKey | None, details: VisitDetails = NO_DETAILS) -> str | None:
    """Count a visit (None: a bot's or a prefetch, not counted) of a link with max_visits, if still allowed.

    None if the redirect may go on, else why not (links.EXPIRED, USED_UP or GONE). One transaction:
    the visit's row (the unique constraint: a visitor counts once a day), then the counter, raised
    only while it is below the limit. Parallel transactions wait for each other's row lock and then
    see the raised counter, so exactly max_visits visitors get through on any number of processes.
    A repeat visitor of the day, or a bot, passes without counting while the link is not used up.
    """
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            new = 0
            if visit is not None:
                link, visitor, visit_day = visit
                day = connection.ops.adapt_datefield_value(visit_day)
                cursor.execute(
                    f"INSERT INTO {VISIT_TABLE} (link_id, visitor, day) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                    [link, visitor, day],
                )
                new = cursor.rowcount
                if new:
                    # Before the link's row, as the batch writer orders them (a refusal rolls them back).
                    _add_visit_breakdowns(cursor, link, day, details)
            cursor.execute(
                f"UPDATE {LINK_TABLE} SET counter = counter + %s WHERE id = %s AND deleted_at IS NULL "
                "AND (expires_at IS NULL OR expires_at > %s) AND (max_visits IS NULL OR counter < max_visits) "
                "RETURNING max_visits IS NOT NULL AND counter >= max_visits",
                [new, link_id, now],
            )
            row = cursor.fetchone()
            if row is not None:
                if new:
                    # The charts' per-day counts, in the same transaction, as the batch writer keeps them.
                    _add_to_days(cursor, link_id, day)
                if row[0]:
                    bump_links_version()  # used up now: other processes drop their copies
                return None
            # Refused: the link's row says why, and the visit's row goes (rolled back).
            cursor.execute(
                f"SELECT deleted_at IS NOT NULL, expires_at IS NOT NULL AND expires_at <= %s "
                f"FROM {LINK_TABLE} WHERE id = %s",
                [now, link_id],
            )
            row = cursor.fetchone()
            transaction.set_rollback(True)
    except IntegrityError:
        return GONE  # the link was removed from the database meanwhile
    if row is None or row[0]:
        return GONE
    return EXPIRED if row[1] else USED_UP


def may_pass_again(link_id: int) -> bool:
    """Whether a visitor already counted today may follow a link with max_visits again.

    The condition count_limited_visit's UPDATE holds a repeat visit to (it adds nothing), read
    without a transaction: nothing is written, so nothing waits for the write lock or the WAL.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT 1 FROM {LINK_TABLE} WHERE id = %s AND deleted_at IS NULL "
            "AND (expires_at IS NULL OR expires_at > %s) AND (max_visits IS NULL OR counter < max_visits)",
            [link_id, connection.ops.adapt_datetimefield_value(timezone.now())],
        )
        return cursor.fetchone() is not None
