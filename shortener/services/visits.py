"""Unique-visit counting: one visit per visitor, per link, per UTC day; bots and prefetches skipped.

A visitor is a keyed hash of the client address and User-Agent whose key changes
every day, so nothing stored can be traced back to an address, and yesterday's
hashes cannot be linked with today's.

New visits are written in batches: each process keeps them in a buffer that a
background thread flushes every SHORTENER_VISIT_FLUSH_SECONDS (and at exit), in
one transaction per batch. The redirect then never waits for the database, and a
thousand visits cost about what one did. The (link, visitor, day) unique
constraint stays the authority, so visits buffered twice (two processes, or a
retried batch) still count once. With SHORTENER_VISIT_FLUSH_SECONDS=0 each visit
is written during its request instead.
"""

import atexit
import datetime
import hashlib
import hmac
import logging
import os
import threading
from collections import Counter
from contextlib import suppress
from functools import lru_cache

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import F
from django.http import HttpRequest
from django.utils import timezone

from common.bots import is_bot
from common.http import client_ip
from shortener.models import ShortLink, Visit

logger = logging.getLogger(__name__)

VISIT_TABLE = Visit._meta.db_table
LINK_TABLE = ShortLink._meta.db_table
# Speculative loads announce themselves in one of these headers (Sec-Purpose, Purpose, X-Purpose, X-Moz).
PREFETCH_META_KEYS = ("HTTP_SEC_PURPOSE", "HTTP_PURPOSE", "HTTP_X_PURPOSE", "HTTP_X_MOZ")
PREFETCH_WORDS = ("prefetch", "preview", "prerender")

type VisitKey = tuple[int, str, datetime.date]


def counts_as_visit(request: HttpRequest) -> bool:
    if request.method != "GET":
        return False
    meta = request.META
    for key in PREFETCH_META_KEYS:
        value = meta.get(key)
        if value and any(word in value.lower() for word in PREFETCH_WORDS):
            return False
    return not is_bot(meta.get("HTTP_USER_AGENT", ""))


@lru_cache(maxsize=4)
def _day_key(day: datetime.date, secret: str) -> bytes:
    # What salted_hmac derives from its salt and secret, computed once a day instead of per visit.
    return hashlib.sha256(f"shortener.visitor:{day.isoformat()}{secret}".encode()).digest()


def visitor_hash(request: HttpRequest, day: datetime.date) -> str:
    """The same value as salted_hmac(f"shortener.visitor:{day}", address + "\\n" + UA, secret)."""
    value = f"{client_ip(request)}\n{request.META.get('HTTP_USER_AGENT', '')}"
    key = _day_key(day, settings.SHORTENER_VISITOR_KEY or settings.SECRET_KEY)
    return hmac.new(key, value.encode(), hashlib.sha256).hexdigest()[:32]


def _write_postgresql(visits: list[VisitKey]) -> Counter[int]:
    link_ids, visitors, days = (list(column) for column in zip(*visits, strict=True))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {VISIT_TABLE} (link_id, visitor, day) "
            "SELECT * FROM unnest(%s::bigint[], %s::varchar[], %s::date[]) "
            "ON CONFLICT DO NOTHING RETURNING link_id",
            [link_ids, visitors, days],
        )
        counts = Counter(row[0] for row in cursor.fetchall())
        ids = sorted(counts)
        if len(ids) > 1:
            # Lock the links in id order, so that two processes flushing at once cannot deadlock.
            cursor.execute(f"SELECT id FROM {LINK_TABLE} WHERE id = ANY(%s) ORDER BY id FOR NO KEY UPDATE", [ids])
        if ids:
            cursor.execute(
                f"UPDATE {LINK_TABLE} AS link SET counter = link.counter + new.n "
                "FROM unnest(%s::bigint[], %s::bigint[]) AS new(id, n) WHERE link.id = new.id",
                [ids, [counts[link_id] for link_id in ids]],
            )
    return counts


def _write_generic(visits: list[VisitKey]) -> Counter[int]:
    # bulk_create(ignore_conflicts=True) cannot say which rows were new; the row count
    # of INSERT … ON CONFLICT DO NOTHING can.
    sql = f"INSERT INTO {VISIT_TABLE} (link_id, visitor, day) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING"
    counts: Counter[int] = Counter()
    with connection.cursor() as cursor:
        for link_id, visitor, day in visits:
            cursor.execute(sql, [link_id, visitor, connection.ops.adapt_datefield_value(day)])
            if cursor.rowcount == 1:
                counts[link_id] += 1
    for link_id in sorted(counts):
        ShortLink.objects.filter(pk=link_id).update(counter=F("counter") + counts[link_id])
    return counts


def _write(visits: list[VisitKey], *, wait_for_wal: bool) -> int:
    """Insert the visits' rows and add the new ones to their links' counters, in one transaction."""
    write = _write_postgresql if connection.vendor == "postgresql" else _write_generic
    with transaction.atomic():
        if not wait_for_wal and connection.vendor == "postgresql":
            # A database crash may then lose the last fraction of a second of visits,
            # which a visit counter can afford; waiting for the WAL flush per visit cannot.
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
        return sum(write(sorted(visits)).values())


def _write_live(visits: list[VisitKey], *, wait_for_wal: bool) -> int:
    try:
        return _write(visits, wait_for_wal=wait_for_wal)
    except IntegrityError:
        # A link was removed from the database since its visit: count the others.
        live = set(ShortLink.objects.filter(pk__in={visit[0] for visit in visits}).values_list("pk", flat=True))
        kept = [visit for visit in visits if visit[0] in live]
        return _write(kept, wait_for_wal=wait_for_wal) if kept else 0


class VisitBuffer:
    """New visits of this process, waiting for the next flush."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # One flush at a time: a flush at exit must not overtake the background one.
        self._flush_lock = threading.Lock()
        self._pending: dict[VisitKey, None] = {}
        self._flusher_pid: int | None = None
        self._flusher: threading.Thread | None = None
        self._stopping = threading.Event()

    def add(self, visit: VisitKey) -> None:
        with self._lock:
            self._pending[visit] = None
            # Per process: a worker forked from a parent that had started a flusher has none.
            if self._flusher_pid != os.getpid():
                self._flusher_pid = os.getpid()
                self.start_flusher()

    def start_flusher(self) -> None:
        self._flusher = threading.Thread(target=self._run, name="shortener-visit-flusher", daemon=True)
        self._flusher.start()
        atexit.register(self.stop)

    def _run(self) -> None:
        while not self._stopping.wait(settings.SHORTENER_VISIT_FLUSH_SECONDS):
            try:
                self.flush()
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
        try:
            self.flush()
        except Exception:
            logger.exception("Could not write the buffered visits at exit; they are lost.")

    def flush(self) -> int:
        """Write the pending visits now; return how many of them were new (counted)."""
        with self._flush_lock:
            with self._lock:
                visits, self._pending = list(self._pending), {}
            if not visits:
                return 0
            try:
                return _write_live(visits, wait_for_wal=True)
            except DatabaseError:
                with self._lock:
                    self._pending = dict.fromkeys(visits) | self._pending
                raise

    def discard(self) -> None:
        with self._lock:
            self._pending = {}


buffer = VisitBuffer()


class SeenVisits:
    """Visits this process has already passed on today: repeat visitors stop here, in memory.

    Only a shortcut: what it forgets (other processes, eviction beyond
    SHORTENER_CACHE_MAX_ENTRIES, a restart) the unique constraint still catches.
    """

    def __init__(self) -> None:
        self._seen: dict[VisitKey, None] = {}

    def first_time(self, visit: VisitKey) -> bool:
        if visit in self._seen:
            return False
        if len(self._seen) >= settings.SHORTENER_CACHE_MAX_ENTRIES:
            # Oldest first; another thread may be changing the dict meanwhile, which is harmless.
            with suppress(RuntimeError, StopIteration, KeyError):
                del self._seen[next(iter(self._seen))]
        self._seen[visit] = None
        return True

    def clear(self) -> None:
        self._seen.clear()


seen = SeenVisits()


def visit_record(*, link_id: int, request: HttpRequest) -> bool:
    """Count this request as a visit of the link if it is a new visitor today.

    Say whether it is new: when visits are buffered it is counted at the next flush,
    unless another process already counted the same visitor today.
    """
    if not counts_as_visit(request):
        return False
    day = datetime.datetime.now(datetime.UTC).date()
    visit = (link_id, visitor_hash(request, day), day)
    if not seen.first_time(visit):
        return False
    if settings.SHORTENER_VISIT_FLUSH_SECONDS:
        buffer.add(visit)
        return True
    return _write_live([visit], wait_for_wal=False) == 1


def visits_flush() -> int:
    """Write this process's buffered visits now (tests, commands); return how many were new."""
    return buffer.flush()


def visits_prune(*, keep_days: int = 1) -> int:
    """Delete de-duplication rows of days that can no longer be visited again; return how many."""
    cutoff = timezone.now().date() - datetime.timedelta(days=keep_days)
    deleted, _ = Visit.objects.filter(day__lt=cutoff).delete()
    return deleted
