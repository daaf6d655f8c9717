"""Counts of links that pages show, read from LinkTally (kept by triggers) instead of counted.

GET /fullstats (live links, generated codes still free), an owner's total in their own
statistics and the Django admin's list of links were counts over the links table, linear in its
size (a sequential scan: 188 ms at 10⁵). Migration 0009's triggers (statement triggers on
PostgreSQL, row triggers on SQLite) keep them as the links are written, whoever writes them;
only the links that expire today are counted, through an index.

On PostgreSQL they also count the links by creation day (`created:<YYYY-MM-DD>`, migration
0012), so that the row at a deep offset of the admin's list of links, newest first, is found by
summing a few hundred days and walking inside one (created_key_at) instead of walking the
OFFSET: the middle of 10⁶ links read 500,000 index entries (48 ms), it now reads ~350 tallies
and at most half a day's links (~1 ms).
"""

import datetime

from django.db import connection
from django.db.models import F, Q, Sum
from django.utils import timezone

from shortener.models import LinkTally, ShortLink


def _tally(key: str) -> int:
    return LinkTally.objects.filter(key=key).values_list("value", flat=True).first() or 0


def owner_live_links(owner_id: int) -> int:
    """How many live (not deleted) links the user owns."""
    return _tally(f"owner:{owner_id}")


def all_links() -> int:
    """How many links there are, deleted ones included."""
    return _tally("links")


def generated_codes() -> int:
    """How many links hold a generated code, deleted ones included (their codes stay taken)."""
    return _tally("generated")


def redirecting_links(live_total: int) -> int:
    """How many links still redirect (services.links.links_live()): not deleted, expired or used up.

    `live_total` is the number of links not deleted. Expiry moves with the clock, so the tally
    keeps the live links by the UTC day they expire: the days before today have all expired,
    and only today's are counted, by the expiry index.
    """
    now = timezone.now()
    today = now.astimezone(datetime.UTC).date()
    kept = LinkTally.objects.filter(
        Q(key="used_up") | Q(key__gte="expires:", key__lt=f"expires:{today.isoformat()}")
    ).aggregate(dead=Sum("value"))["dead"]
    midnight = datetime.datetime.combine(today, datetime.time(), tzinfo=datetime.UTC)
    expired_today = ShortLink.objects.filter(
        Q(max_visits__isnull=True) | Q(counter__lt=F("max_visits")),
        deleted_at__isnull=True,
        expires_at__gte=midnight,
        expires_at__lte=now,
    ).count()
    return live_total - (kept or 0) - expired_today


CREATED = "created:"
# The newest first order of the Django admin's list of links, and of shortener_link_created_idx.
NEWEST = ("-created_at", "-pk")


def created_key_at(offset: int) -> tuple[datetime.datetime, int] | None:
    """(created_at, id) of the link at `offset` (0-based) of every link, deleted ones included,
    newest first (NEWEST); None if the day tallies are not kept (not PostgreSQL) or do not reach it."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        # The day keys sort as their days do. Summed as integers (a day never holds 2^31 links).
        cursor.execute(
            f"SELECT key, value, before FROM ("
            f" SELECT key, value,"
            f" SUM(value::integer) OVER (ORDER BY key DESC ROWS UNBOUNDED PRECEDING) - value AS before"
            f" FROM {LinkTally._meta.db_table} WHERE key >= %s AND key < %s"
            f") AS d WHERE before + value > %s ORDER BY key DESC LIMIT 1",
            [CREATED, "created;", offset],  # ";" follows ":": every "created:…" key and no other
        )
        found = cursor.fetchone()
    if found is None:
        return None
    key, links, before = found
    start = datetime.datetime.combine(
        datetime.date.fromisoformat(key.removeprefix(CREATED)), datetime.time(), tzinfo=datetime.UTC
    )
    in_day = ShortLink.objects.filter(created_at__gte=start, created_at__lt=start + datetime.timedelta(days=1))
    # The position inside the day, newest first; walked from the day's nearer end.
    inside = offset - before
    below = links - 1 - inside
    if inside <= below:
        keys = in_day.order_by(*NEWEST).values_list("created_at", "pk")[inside : inside + 1]
    else:
        keys = in_day.order_by("created_at", "pk").values_list("created_at", "pk")[below : below + 1]
    return next(iter(keys), None)
