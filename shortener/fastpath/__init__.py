"""The shortener's fast path: what makes following a short link cheap.

    request ──> wsgi.py (config/wsgi.py wraps Django's handler with it)
                │  plain GET of a cached live code: 302/301 (or the JSON resolve) from here,
                │  with host validation and SecurityMiddleware; no URL resolution, no other middleware
                └─ anything else ──> Django ──> views.links.follow() ──> resolve() / record_visit()
    links.py    code → link copies per process: preloaded at start(), dropped when a link
                changes (apps.py signals; LinkCacheVersion, read once a second, for other processes)
    visits.py   visitors seen today, and new visits buffered and written every
                SHORTENER_VISIT_FLUSH_SECONDS by a thread (and at exit); a visit of a link with
                max_visits is counted in the database during its request instead (see follow())
    visit_writer.py  the process (one per web process) the flusher hands each batch to, so that
                writing it does not hold the GIL the redirects need

The rest of the shortener uses only this module's names (config/wsgi.py: wsgi.py). Domain rules (what counts as a
visit, the visitor hash, URL validation) stay in shortener/services/.
"""

import datetime
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.http import HttpRequest

from common import metrics
from shortener import rules
from shortener.fastpath import links, visits
from shortener.fastpath.links import EXPIRED, GONE, USED_UP, CachedLink, forget_cached_link, lifetime_over
from shortener.services.breakdowns import NO_DETAILS, visit_details
from shortener.services.visits import counts_as_visit, is_bot_get, visitor_hash

__all__ = [
    "EXPIRED",
    "GONE",
    "USED_UP",
    "CachedLink",
    "destination",
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


def resolve(domain: str, code: str) -> CachedLink | None:
    """The link behind `code` on `domain` (deleted ones included), cached in this process after the first lookup.

    A link with max_visits is read from the database every time: its counter moves with every
    visit, in any process, and a copy would let it redirect past its limit.
    """
    start()
    link = links.cached_link(domain, code)
    if link is not None and link.max_visits is not None:
        link = links.cached_link(domain, code, fresh=True)
    return link


def destination(link: CachedLink, request: HttpRequest, extra_path: str = "") -> tuple[str, str]:
    """Where this visit goes, and the name its rule is counted under ("" for a link without rules).

    From the cached copy only (its rules compiled when it was cached): no query.
    """
    url, rule_name = link.url, ""
    if link.rules:
        rule = rules.matching_rule(link.rules, request)
        url, rule_name = (rule.url, rule.key) if rule else (link.url, rules.FALLBACK)
    if extra_path and link.forward_path:
        url = rules.with_extra_path(url, extra_path)
    if link.forward_query:
        query = request.META.get("QUERY_STRING", "")
        if query:
            url = rules.with_query(url, query)
    return url, rule_name


def record_visit(*, link_id: int, request: HttpRequest, unlocked: bool = False, rule: str = "") -> bool:
    """Count this request as a visit of the link if it is a new visitor today.

    Say whether it is new: when visits are buffered it is counted at the next flush,
    unless another process already counted the same visitor today. `rule`: the redirect rule
    it followed (destination()), counted with the visit.
    """
    if not counts_as_visit(request, unlocked=unlocked):
        _record_bot(link_id, request, unlocked=unlocked)
        return False
    day = datetime.datetime.now(datetime.UTC).date()
    visit = (link_id, visitor_hash(request, day), day)
    if not visits.seen.first_time(visit):
        return False
    # Only for a new visitor of the day: the country is looked up now (the address goes no further).
    details = visit_details(request, rule)
    if settings.SHORTENER_VISIT_FLUSH_SECONDS:
        visits.buffer.add(visit, details)
        return True
    return visits.write_visits([visit], wait_for_wal=False, details={visit: details}) == 1


def _record_bot(link_id: int, request: HttpRequest, *, unlocked: bool = False) -> None:
    """A robot's GET is no visit, but the statistics show it apart (a prefetch is neither)."""
    if not is_bot_get(request, unlocked=unlocked):
        return
    bot = (link_id, datetime.datetime.now(datetime.UTC).date(), request.META.get("HTTP_USER_AGENT", "")[:512])
    if settings.SHORTENER_VISIT_FLUSH_SECONDS:
        visits.buffer.add_bot(bot)
    else:
        visits.write_visits([], wait_for_wal=False, bots={bot: 1})


def follow(link: CachedLink, request: HttpRequest, *, unlocked: bool = False, rule: str = "") -> str | None:
    """Record the visit of a redirect; None if it may go on, else why not (EXPIRED, USED_UP, GONE).

    A link without max_visits only has its visit recorded (buffered, see record_visit). One with
    max_visits is counted in the database now, by a conditional UPDATE that only passes while the
    counter is below the limit: whatever the number of processes and servers, exactly max_visits
    visitors are let through. (Counting per process let each process pass its own allowance.)
    A visitor this process counted today is only read for (visits.may_pass_again).
    `unlocked`: the request is the right password's POST of a protected link, a visit too.
    """
    if link.max_visits is None:
        record_visit(link_id=link.pk, request=request, unlocked=unlocked, rule=rule)
        if settings.METRICS_TOKEN:
            metrics.REDIRECTED()
        return None
    visit = None
    details = NO_DETAILS
    if counts_as_visit(request, unlocked=unlocked):
        day = datetime.datetime.now(datetime.UTC).date()
        visit = (link.pk, visitor_hash(request, day), day)
        if visits.seen.known(visit) and visits.may_pass_again(link.pk):
            # Counted today already, so there is nothing to add: a read instead of a write.
            # Remembered only once counted, so that a refused visitor still counts if the
            # limit is raised later; a refusal goes the whole way below, which says why.
            if settings.METRICS_TOKEN:
                metrics.REDIRECTED()
            return None
        details = visit_details(request, rule)
    else:
        _record_bot(link.pk, request, unlocked=unlocked)
    refused = visits.count_limited_visit(link.pk, visit, details)
    if refused is None and visit is not None:
        visits.seen.remember(visit)
    if settings.METRICS_TOKEN:
        (metrics.REFUSED if refused else metrics.REDIRECTED)()
    return refused


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
        visits.seen.clear()
        visits.buffer.discard()

    links.local_links.background = visits.buffer.background = False
    forget_everything()
    try:
        yield
    finally:
        forget_everything()
        links.local_links.background = visits.buffer.background = True
