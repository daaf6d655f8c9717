"""Finding the n-th link of a ranking (GET /s/stats) without walking the ranking up to it.

A page of a ranking (most visited first: counter DESC, created_at DESC, id DESC) is a seek in
the ranking's index from the key of its first link (services/links.py, links_page). Finding
that key by walking the index costs one entry per link above it (or below it, from the
nearer end): ~230 ms at the middle of 10⁶ links. On PostgreSQL the ranking is also kept
cut into buckets of links sharing a counter value and a creation month (LinkRankBucket, by a
trigger): summing bucket sizes in ranking order finds the bucket that holds the n-th link,
and the walk then stays inside that bucket (from its nearer end). Both are exact: the sizes
are the links themselves, counted as they are written (docs/scale.md). At 10⁶ links the
middle page sums ~230 buckets and walks ~1,150 index entries: 0.5 ms.
"""

import datetime

from django.db import connection
from django.db.models import QuerySet

from shortener.models import LinkRankBucket

BUCKETS = LinkRankBucket._meta.db_table
POPULARITY = ("counter", "created_at", "pk")


def _bucket_of(scope: int, position: int, *, from_top: bool) -> tuple[int, datetime.date, int, int] | None:
    """(counter, month, links, links before it) of the bucket holding the `position`-th link (0-based)
    counted from the top of the ranking, or from its bottom; None if the ranking is shorter."""
    order = "DESC" if from_top else "ASC"
    with connection.cursor() as cursor:
        # The running sum streams: the scan stops at the first bucket past `position`. Summed
        # as integers (a bucket never holds 2^31 links): a bigint's SUM is a numeric, 6x slower.
        cursor.execute(
            f"SELECT counter, month, links, before FROM ("
            f" SELECT counter, month, links,"
            f" SUM(links::integer) OVER (ORDER BY counter {order}, month {order} ROWS UNBOUNDED PRECEDING)"
            f" - links AS before"
            f" FROM {BUCKETS} WHERE scope = %s"
            f") AS b WHERE before + links > %s ORDER BY counter {order}, month {order} LIMIT 1",
            [scope, position],
        )
        return cursor.fetchone()


def key_at(ranked: QuerySet, *, scope: int, offset: int, total: int) -> tuple | None:
    """The key (counter, created_at, id) of the link at `offset` (0-based) of `ranked` (ordered by
    popularity, live links of `scope`), found through the buckets; None if they do not reach it."""
    from_end = total - 1 - offset
    from_top = offset <= from_end
    bucket = _bucket_of(scope, offset if from_top else from_end, from_top=from_top)
    if bucket is None:
        return None
    counter, month, links, before = bucket
    # The position inside the bucket, counted from its top (its most recent link).
    inside = offset - before if from_top else links - 1 - (from_end - before)
    start = datetime.datetime.combine(month, datetime.time(), tzinfo=datetime.UTC)
    end = datetime.datetime.combine(_next_month(month), datetime.time(), tzinfo=datetime.UTC)
    in_bucket = ranked.filter(counter=counter, created_at__gte=start, created_at__lt=end)
    if inside <= links - 1 - inside:
        keys = in_bucket.values_list(*POPULARITY)[inside : inside + 1]
    else:
        below = links - 1 - inside
        keys = in_bucket.order_by(*POPULARITY).values_list(*POPULARITY)[below : below + 1]
    return next(iter(keys), None)


def _next_month(month: datetime.date) -> datetime.date:
    return datetime.date(month.year + month.month // 12, month.month % 12 + 1, 1)


def buckets_kept() -> bool:
    """Whether the buckets are kept (by migration 0012's trigger, on PostgreSQL only)."""
    return connection.vendor == "postgresql"
