"""At most REPORTS_AUDIT_HOST_FETCHES page fetches per host at once, across every worker, spaced by Crawl-delay.

The slots are rows (`CrawlHostSlot`), not process memory: RQ workers and database-backend
workers on several machines share them. A crawl takes one with a conditional UPDATE of a
free (or expired) slot whose `not_before` has passed, which sets `not_before` to now plus
the host's Crawl-delay; the row is made on first use (the unique (host, slot) constraint
settles two workers making it at once). A holder that dies keeps its slot only until
`held_until`, set past the longest an analysis can take (its fetch budget and rendering time).
With a Crawl-delay the host gets one slot, so its fetches are one at a time and that far apart.

    with host_slot("shop.example", crawl_delay=1.0, holder="report-12-run-1"):
        analyze(url)
"""

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from reports.models import CrawlHostSlot

# How long a slot stays taken if its holder dies without giving it back, beyond an analysis' own limits.
HOLD_MARGIN_SECONDS = 60.0
FIRST_POLL_SECONDS = 0.05
MAX_POLL_SECONDS = 0.5


def _try_take(host: str, holder: str, crawl_delay: float) -> bool:
    now = timezone.now()
    hold = settings.REPORTS_FETCH_TIMEOUT + settings.REPORTS_RENDER_TIMEOUT + HOLD_MARGIN_SECONDS
    changes = {
        "holder": holder,
        "held_until": now + timedelta(seconds=hold),
        "not_before": now + timedelta(seconds=crawl_delay),
    }
    free = Q(holder="") | Q(held_until__lt=now)
    ready = Q(not_before__isnull=True) | Q(not_before__lte=now)
    # With a Crawl-delay, one slot: the delay is between any two fetches of the host.
    for slot in range(1 if crawl_delay else settings.REPORTS_AUDIT_HOST_FETCHES):
        if CrawlHostSlot.objects.filter(free & ready, host=host, slot=slot).update(**changes):
            return True
        if not CrawlHostSlot.objects.filter(host=host, slot=slot).exists():
            try:
                with transaction.atomic():
                    CrawlHostSlot.objects.create(host=host, slot=slot, **changes)
                return True
            except IntegrityError:  # another worker made it first: it holds it
                continue
    return False


def acquire(host: str, holder: str, crawl_delay: float = 0.0, *, timeout: float | None = None) -> bool:
    """Wait for a slot of `host` (up to `timeout` seconds; None: as long as it takes); whether one was taken."""
    deadline = None if timeout is None else time.monotonic() + timeout
    pause = FIRST_POLL_SECONDS
    while not _try_take(host, holder, crawl_delay):
        if deadline is not None and time.monotonic() >= deadline:
            return False
        time.sleep(max(pause, 0))
        pause = min(pause * 2, MAX_POLL_SECONDS, max(crawl_delay, FIRST_POLL_SECONDS))
    return True


def release(host: str, holder: str) -> None:
    CrawlHostSlot.objects.filter(host=host, holder=holder).update(holder="", held_until=None)


@contextmanager
def host_slot(host: str, *, holder: str, crawl_delay: float = 0.0) -> Iterator[None]:
    acquire(host, holder, crawl_delay)
    try:
        yield
    finally:
        release(host, holder)
