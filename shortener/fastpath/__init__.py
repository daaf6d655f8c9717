"""The shortener's fast path: what makes following a short link cheap.

    request ──> wsgi.py (config/wsgi.py wraps Django's handler with it)
                │  plain GET of a cached live code: 302/301 (or the JSON resolve) from here,
                │  with host validation and SecurityMiddleware; no URL resolution, no other middleware
                └─ anything else ──> Django ──> views.links.follow() ──> resolve() / record_visit()
    links.py    code → link copies per process: preloaded at start(), dropped when a link
                changes (apps.py signals; LinkCacheVersion, read once a second, for other processes)
    visits.py   visitors seen today, and new visits buffered and written every
                SHORTENER_VISIT_FLUSH_SECONDS by a thread (and at exit)

The rest of the shortener uses only this module's names (config/wsgi.py: wsgi.py). Domain rules (what counts as a
visit, the visitor hash, URL validation) stay in shortener/services/.
"""

import datetime
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.http import HttpRequest

from shortener.fastpath import links, visits
from shortener.fastpath.links import EXPIRED, USED_UP, CachedLink, forget_cached_link, lifetime_over
from shortener.services.visits import counts_as_visit, visitor_hash

__all__ = [
    "EXPIRED",
    "USED_UP",
    "CachedLink",
    "flush_visits",
    "follow",
    "forget_cached_link",
    "isolated",
    "lifetime_over",
    "record_visit",
    "resolve",
    "start",
]


def start() -> None:
    """Once per process (again after a fork): preload the links, watch for changes, flush visits."""
    links.local_links.start()
    visits.buffer.start()


def resolve(code: str) -> CachedLink | None:
    """The link behind `code` (deleted ones included), cached in this process after the first lookup."""
    start()
    return links.cached_link(code)


def record_visit(*, link_id: int, request: HttpRequest) -> bool:
    """Count this request as a visit of the link if it is a new visitor today.

    Say whether it is new: when visits are buffered it is counted at the next flush,
    unless another process already counted the same visitor today.
    """
    if not counts_as_visit(request):
        return False
    day = datetime.datetime.now(datetime.UTC).date()
    visit = (link_id, visitor_hash(request, day), day)
    if not visits.seen.first_time(visit):
        return False
    if settings.SHORTENER_VISIT_FLUSH_SECONDS:
        visits.buffer.add(visit)
        return True
    return visits.write_visits([visit], wait_for_wal=False) == 1


# Checking a link's max_visits and counting a visit against it happen together, or parallel
# requests of this process could all pass the check before any of them counted.
_limited_visits = threading.Lock()


def follow(link: CachedLink, request: HttpRequest) -> bool:
    """Record the visit of a redirect; False (nothing recorded) if the link's max_visits was reached meanwhile."""
    if link.max_visits is None:
        record_visit(link_id=link.pk, request=request)
        return True
    with _limited_visits:
        if lifetime_over(link):
            return False
        if record_visit(link_id=link.pk, request=request):
            links.local_links.spend(link)
    return True


def flush_visits() -> int:
    """Write this process's buffered visits now (tests, commands); return how many were new."""
    return visits.buffer.flush()


@contextmanager
def isolated() -> Iterator[None]:
    """No background threads, and nothing cached, seen or buffered on entry nor left on exit: for tests.

    The threads (preload, version watch, flusher) use connections of their own, outside a test's
    transaction; tests call links.local_links.preload()/check_version() and flush_visits() instead.
    """

    def forget_everything() -> None:
        links.cache.clear()
        links.local_links.clear()
        links.local_links.forget_spent()
        visits.seen.clear()
        visits.buffer.discard()

    links.local_links.background = visits.buffer.background = False
    forget_everything()
    try:
        yield
    finally:
        forget_everything()
        links.local_links.background = visits.buffer.background = True
