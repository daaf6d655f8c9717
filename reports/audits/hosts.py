"""At most REPORTS_AUDIT_HOST_FETCHES page fetches per host at once, across every worker, spaced by Crawl-delay.

The slots are rows (`CrawlHostSlot`), not process memory: RQ workers and database-backend
workers on several machines share them. A crawl takes one with a conditional UPDATE of a
free (or expired) slot whose `not_before` has passed, which sets `not_before` to now plus
the host's Crawl-delay; the row is made on first use (the unique (host, slot) constraint
settles two workers making it at once). A holder that dies keeps its slot only until
`held_until`: a live holder renews it every third of REPORTS_ANALYSIS_LEASE (as an analysis
renews its lease), so a dead one's slot is free again within a lease. With a Crawl-delay the
host gets one slot, so its fetches are one at a time and that far apart.

The slot covers a page's whole analysis: the page and the few sub-requests the engine makes
for it (robots.txt, the sitemap, a 404 probe, assets, at most REPORTS_MAX_SUBREQUESTS), so
"2 at once" counts pages being analysed, not single HTTP requests.

    with host_slot("shop.example", crawl_delay=1.0, holder="report-12-run-1"):
        analyze(url)
"""

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, connections, transaction
from django.db.models import Q
from django.utils import timezone

from reports.models import CrawlHostSlot

FIRST_POLL_SECONDS = 0.05
MAX_POLL_SECONDS = 0.5


def _try_take(host: str, holder: str, crawl_delay: float) -> bool:
    now = timezone.now()
    changes = {
        "holder": holder,
        "held_until": now + timedelta(seconds=settings.REPORTS_ANALYSIS_LEASE),
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


def _renew(host: str, holder: str) -> None:
    CrawlHostSlot.objects.filter(host=host, holder=holder).update(
        held_until=timezone.now() + timedelta(seconds=settings.REPORTS_ANALYSIS_LEASE)
    )


@contextmanager
def host_slot(host: str, *, holder: str, crawl_delay: float = 0.0) -> Iterator[None]:
    """Hold a slot of `host` while the block runs, renewing it from a thread."""
    acquire(host, holder, crawl_delay)
    stop = threading.Event()

    def renew() -> None:
        try:
            while not stop.wait(settings.REPORTS_ANALYSIS_LEASE / 3):
                _renew(host, holder)
        finally:
            connections.close_all()  # this thread's own connections

    renewer = threading.Thread(target=renew, name=f"crawl-slot-{holder}", daemon=True)
    renewer.start()
    try:
        yield
    finally:
        stop.set()
        renewer.join()
        release(host, holder)
