"""Counts of links that pages show, read from LinkTally (kept by triggers) instead of counted.

GET /fullstats (live links, generated codes still free), an owner's total in their own
statistics and the Django admin's list of links were counts over the links table, linear in its
size (a sequential scan: 188 ms at 10⁵). Migration 0009's triggers (statement triggers on
PostgreSQL, row triggers on SQLite) keep them as the links are written, whoever writes them;
only the links that expire today are counted, through an index.
"""

import datetime

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
