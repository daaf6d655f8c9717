"""Unique-visit rules: one visit per visitor, per link, per UTC day; bots and prefetches skipped.

A visitor is a keyed hash of the client address and User-Agent whose key changes
every day, so nothing stored can be traced back to an address, and yesterday's
hashes cannot be linked with today's. Recording visits (memory of visitors seen,
buffer, batch writes) is the fast path's job: shortener/fastpath/visits.py.
"""

import datetime
import hashlib
import hmac
from functools import lru_cache

from django.conf import settings
from django.db import connection
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from common.bots import is_bot
from common.http import client_ip
from shortener.charts import CHART_DAYS
from shortener.models import DailyVisits, Visit, VisitBreakdown

# Speculative loads announce themselves in one of these headers (Sec-Purpose, Purpose, X-Purpose, X-Moz).
PREFETCH_META_KEYS = ("HTTP_SEC_PURPOSE", "HTTP_PURPOSE", "HTTP_X_PURPOSE", "HTTP_X_MOZ")
PREFETCH_WORDS = ("prefetch", "preview", "prerender")

# (link id, visitor hash, UTC day): what the (link, visitor, day) unique constraint holds once.
type VisitKey = tuple[int, str, datetime.date]
# (link id, UTC day, User-Agent): a robot's request, counted apart in the breakdowns.
type BotKey = tuple[int, datetime.date, str]


def counts_as_visit(request: HttpRequest, *, unlocked: bool = False) -> bool:
    """A GET by a person (`unlocked`: the POST of a protected link's password form, which leads on)."""
    if request.method != ("POST" if unlocked else "GET"):
        return False
    meta = request.META
    for key in PREFETCH_META_KEYS:
        value = meta.get(key)
        if value and any(word in value.lower() for word in PREFETCH_WORDS):
            return False
    return not is_bot(meta.get("HTTP_USER_AGENT", ""))


def is_bot_get(request: HttpRequest, *, unlocked: bool = False) -> bool:
    """A known robot's GET that is not a prefetch: shown apart in the statistics, never counted."""
    if request.method != ("POST" if unlocked else "GET") or is_prefetch(request):
        return False
    return is_bot(request.META.get("HTTP_USER_AGENT", ""))


def is_prefetch(request: HttpRequest) -> bool:
    meta = request.META
    for key in PREFETCH_META_KEYS:
        value = meta.get(key)
        if value and any(word in value.lower() for word in PREFETCH_WORDS):
            return True
    return False


@lru_cache(maxsize=4)
def _day_key(day: datetime.date, secret: str) -> bytes:
    # What salted_hmac derives from its salt and secret, computed once a day instead of per visit.
    return hashlib.sha256(f"shortener.visitor:{day.isoformat()}{secret}".encode()).digest()


def visitor_hash(request: HttpRequest, day: datetime.date) -> str:
    """The same value as salted_hmac(f"shortener.visitor:{day}", address + "\\n" + UA, secret)."""
    value = f"{client_ip(request)}\n{request.META.get('HTTP_USER_AGENT', '')}"
    key = _day_key(day, settings.SHORTENER_VISITOR_KEY or settings.SECRET_KEY)
    return hmac.new(key, value.encode(), hashlib.sha256).hexdigest()[:32]


PRUNE_BATCH = 10_000


def _delete_in_batches(queryset: QuerySet, batch: int) -> int:
    """Delete the rows `batch` at a time, each batch its own transaction; return how many.

    One DELETE of a month of visits (10^7 rows) would hold its locks and its WAL for minutes;
    a batch is found by the `day` index from its low end, so each costs about the same.
    """
    deleted = 0
    while True:
        ids = list(queryset.values_list("pk", flat=True).order_by()[:batch])
        if not ids:
            return deleted
        deleted += queryset.model.objects.filter(pk__in=ids).delete()[0]


def visits_prune(
    *, keep_days: int = 1, keep_chart_days: int = CHART_DAYS - 1, batch: int = PRUNE_BATCH
) -> tuple[int, int]:
    """Delete what can no longer change nor be shown; return how many (Visit, DailyVisits) rows.

    Visit rows only tell a repeat visitor of the same UTC day from a new one, so days that can
    no longer be visited again go (yesterday stays, for a batch still buffered at midnight);
    the charts read the per-day counts, kept for the days they show. The counters and the
    site-wide per-day counts (one row a day) are kept.
    """
    today = timezone.now().date()
    visits = Visit.objects.filter(day__lt=today - datetime.timedelta(days=keep_days))
    daily = DailyVisits.objects.filter(day__lt=today - datetime.timedelta(days=keep_chart_days))
    return _delete_in_batches(visits, batch), _delete_in_batches(daily, batch)


def breakdowns_prune(*, keep_days: int, batch: int = PRUNE_BATCH) -> int:
    """Delete the per-day breakdowns of days before `keep_days` ago; return how many rows."""
    first_kept = timezone.now().date() - datetime.timedelta(days=keep_days)
    # A breakdown's key is four columns: 10,000 of them listed in a query went past PostgreSQL's
    # stack depth limit, and as a subquery they made it scan the whole table for each batch. A
    # batch is named by the rows' physical addresses instead, found by the day index, so each
    # costs the same whatever the table's size (no writer touches a past day's rows).
    table = VisitBreakdown._meta.db_table
    if connection.vendor == "postgresql":
        sql = f"DELETE FROM {table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM {table} WHERE day < %s LIMIT %s))"
    else:
        sql = f"DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM {table} WHERE day < %s LIMIT %s)"
    deleted = 0
    while True:
        with connection.cursor() as cursor:  # autocommit: each batch its own transaction
            cursor.execute(sql, [connection.ops.adapt_datefield_value(first_kept), batch])
            count = cursor.rowcount
        if not count:
            return deleted
        deleted += count
