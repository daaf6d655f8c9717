"""An audit's crawl on the analyses' task engine (the database backend or RQ; reports/tasks.py).

1. `start_audit` (one task per audit) claims the queued audit, reads robots.txt (and its
   Crawl-delay) and the sitemaps, and adds the start page and the sitemap's pages.
2. Each page is a `Report` of the project with `audit` set, analysed by the reports' own task
   (`reports.tasks.analyze_report`), which takes a slot of the host (`hosts.py`) around the
   fetch and, once the page is done or failed, calls `finish_page` here: the page's
   same-site links that robots.txt allows are added as new pages, up to `max_pages`.
3. When every page found is done or failed and the start has finished, the audit is done:
   its summary is stored and `audit.done` (with `budget.failed`/`check.regressed` when they
   apply) is sent through the project's webhooks (reports/webhooks.py).

Nothing is lost to a killed worker: pages are reports, claimed by run number and queued
again when their lease passes (`requeue_stale_analyses`); the start holds a lease too and
is queued again by `requeue_stale_audits` (which the same sweep calls); adding a page
looks for it under the audit's row lock first, so a start or page run twice adds nothing twice.
"""

import logging
import threading
from collections import deque
from collections.abc import Callable
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Q
from django.tasks import task
from django.tasks.backends.immediate import ImmediateBackend
from django.utils import timezone
from django_tasks_db.backend import DatabaseBackend
from redis.exceptions import RedisError

from reports import tasks
from reports.analysis.robots import parse_robots
from reports.audits import alerts, discovery, summary
from reports.models import Audit, Report

logger = logging.getLogger(__name__)

START_GAVE_UP = (
    "The audit could not start: reading the site's robots.txt and sitemaps was tried {attempts} times "
    "and never finished (the worker stopped or failed each time). Run it again later."
)
# URLs looked up at once among an audit's pages (far below any database's limit on parameters).
LOOKUP_CHUNK = 500


def _lease_end() -> datetime:
    # The start fetches robots.txt and the sitemaps within one fetch budget.
    return timezone.now() + timedelta(seconds=settings.REPORTS_ANALYSIS_LEASE + settings.REPORTS_FETCH_TIMEOUT)


# --- Queuing ------------------------------------------------------------------


def _database_backend() -> bool:
    return isinstance(start_audit.get_backend(), DatabaseBackend)


def enqueue_start_in_transaction(audit: Audit) -> bool:
    """Queue the start with the audit's row when the queue is in the database (see tasks.py)."""
    if not _database_backend():
        return False
    start_audit.enqueue(audit.pk)
    return True


def enqueue_start(audit: Audit) -> None:
    """Queue the start once the audit's row is committed; if the backend is down, the sweep queues it later."""
    try:
        start_audit.enqueue(audit.pk)
    except RedisError:
        logger.warning("Could not queue audit %s; the worker's sweep queues it once the backend answers.", audit.pk)
        Audit.objects.filter(pk=audit.pk, status=Audit.Status.QUEUED).update(lease_until=timezone.now())


# With the immediate backend (tests, `analyze_url`), a task queued from a task runs inside it: a
# 200-page crawl would nest 200 analyses deep (and hold its host's slot in each). Pages queued
# while one runs are kept here and run one after the other by the outermost call instead.
_immediate = threading.local()


def _enqueue_pages(pages: list[tuple[int, int]]) -> None:
    if not isinstance(tasks.analyze_report.get_backend(), ImmediateBackend):
        for report_id, run in pages:
            report = Report(pk=report_id, analysis_run=run, status=Report.Status.QUEUED)
            tasks.enqueue_analysis(report)
        return
    pending = getattr(_immediate, "pending", None)
    if pending is not None:
        pending.extend(pages)
        return
    _immediate.pending = pending = deque(pages)
    try:
        while pending:
            tasks.analyze_report.enqueue(*pending.popleft())
    finally:
        _immediate.pending = None


# --- The start ----------------------------------------------------------------


@task()
def start_audit(audit_id: int) -> str:
    """Read the site's robots.txt and sitemaps, add the first pages; what became of the audit."""
    now = timezone.now()
    claimed = Audit.objects.filter(pk=audit_id, status=Audit.Status.QUEUED).update(
        status=Audit.Status.RUNNING, lease_until=_lease_end(), start_attempts=F("start_attempts") + 1
    )
    audit = Audit.objects.filter(pk=audit_id).first() if claimed else None
    if audit is None:
        return "skipped"
    restarted = audit.started_at is not None
    if not restarted:
        Audit.objects.filter(pk=audit_id).update(started_at=now)
    robots_text, sitemap_pages = discovery.read_site(audit.url)
    delay = discovery.crawl_delay(robots_text, settings.REPORTS_USER_AGENT)
    Audit.objects.filter(pk=audit_id).update(robots_txt=robots_text, crawl_delay=delay)
    audit.robots_txt, audit.crawl_delay = robots_text, delay
    robots = parse_robots(robots_text)
    start = discovery.normalized(audit.url, audit.url) or audit.url
    if not discovery.allowed(robots, start):
        _fail(audit_id, "The site's robots.txt does not allow crawling the start page.")
        return "failed"
    candidates = [start, *(url for url in sitemap_pages if discovery.allowed(robots, url))]
    with transaction.atomic():
        added = add_pages(audit_id, candidates)
        # The start is over: from now on the audit is done when its last page is.
        Audit.objects.filter(pk=audit_id, status=Audit.Status.RUNNING).update(lease_until=None)
    if restarted:
        # The start that died may have stored pages without queuing them (RQ queues after the commit).
        # Queuing a page's current run again is harmless: only one task claims a run.
        waiting = Report.objects.filter(audit_id=audit_id, status=Report.Status.QUEUED, lease_until__isnull=True)
        added += [page for page in waiting.values_list("pk", "analysis_run") if page not in added]
    _enqueue_pages(added)
    finish_if_complete(audit_id)
    return "started"


def _fail(audit_id: int, error: str) -> None:
    Audit.objects.filter(pk=audit_id, status=Audit.Status.RUNNING).update(
        status=Audit.Status.FAILED, error=error, lease_until=None, finished_at=timezone.now()
    )


def add_pages(audit_id: int, urls: list[str]) -> list[tuple[int, int]]:
    """Add the URLs the audit has not seen yet as queued pages, up to max_pages (see `_add_locked`)."""
    with transaction.atomic():
        audit = Audit.objects.select_for_update().filter(pk=audit_id).first()
        return _add_locked(audit, urls) if audit is not None else []


def _add_locked(audit: Audit, urls: list[str]) -> list[tuple[int, int]]:
    """Add new pages to the audit, whose row the caller's transaction has locked; recount it.

    With the database backend their tasks are queued in this transaction (committed with the
    rows) and nothing is returned; otherwise the (report id, run) of each new page, for the
    caller to queue with `_enqueue_pages` once the transaction has committed.
    """
    urls = [url for url in dict.fromkeys(urls) if len(url) <= Report.URL_MAX_LENGTH]
    new: list[str] = []
    room = audit.max_pages - audit.pages.count()
    # Queued too: a start queued again (its worker died) while pages still finish; it adds nothing twice.
    if room > 0 and not audit.is_finished:
        # In chunks, and only until the room is filled: one `url__in` of every URL a sitemap
        # lists can pass SQLite's and PostgreSQL's limits on a query's parameters.
        for offset in range(0, len(urls), LOOKUP_CHUNK):
            chunk = urls[offset : offset + LOOKUP_CHUNK]
            known = set(audit.pages.filter(url__in=chunk).values_list("url", flat=True))
            new += [url for url in chunk if url not in known]
            if len(new) >= room:
                break
        new = new[:room]
    pages = Report.objects.bulk_create(
        Report(
            owner_id=audit.owner_id,
            project_id=audit.project_id,
            audit=audit,
            url=url,
            status=Report.Status.QUEUED,
            analysis_run=1,
            privacy=audit.privacy,
            password=audit.password,  # the audit's hash: one password opens the audit and its pages
        )
        for url in new
    )
    _recount(audit)
    added = [(page.pk, 1) for page in pages]
    if added and _database_backend():
        for report_id, run in added:
            tasks.analyze_report.enqueue(report_id, run)
        return []
    return added


def _recount(audit: Audit) -> Audit:
    counts = audit.pages.aggregate(
        found=Count("pk"),
        done=Count("pk", filter=Q(status=Report.Status.DONE)),
        failed=Count("pk", filter=Q(status=Report.Status.FAILED)),
    )
    audit.pages_found, audit.pages_done, audit.pages_failed = counts["found"], counts["done"], counts["failed"]
    Audit.objects.filter(pk=audit.pk).update(
        pages_found=audit.pages_found, pages_done=audit.pages_done, pages_failed=audit.pages_failed
    )
    return audit


# --- Each page ----------------------------------------------------------------


def finish_page(audit_id: int, finish: Callable[[], bool], links: list[str]) -> bool:
    """Store a page's outcome with `finish` (its conditional UPDATE) and add its links, in one transaction.

    Under the audit's row lock, so that `finish_if_complete` never sees the page finished
    before the pages it links to are added (it would end the audit too soon). Whether
    `finish` stored the outcome (False: the run no longer held the page).
    """
    added: list[tuple[int, int]] = []
    with transaction.atomic():
        audit = Audit.objects.select_for_update().filter(pk=audit_id).first()
        finished = finish()
        if audit is None:
            return finished
        follow = []
        if finished and links and not audit.is_finished:
            follow = discovery.links_to_follow(links, audit.url, parse_robots(audit.robots_txt))
        added = _add_locked(audit, follow)
    _enqueue_pages(added)
    finish_if_complete(audit_id)
    return finished


# --- The end ------------------------------------------------------------------


def finish_if_complete(audit_id: int) -> bool:
    """Mark the audit done once its start is over and every page is done or failed; send its events once."""
    with transaction.atomic():
        audit = Audit.objects.select_for_update().filter(pk=audit_id).first()
        if audit is None or audit.status != Audit.Status.RUNNING or audit.lease_until is not None:
            return False
        _recount(audit)
        if audit.pages_done + audit.pages_failed < audit.pages_found:
            return False
        audit.summary = summary.summarize(audit)
        audit.status, audit.finished_at = Audit.Status.DONE, timezone.now()
        audit.save(update_fields=["summary", "status", "finished_at"])
    # Once: only the call that moved the audit from running to done gets here.
    _send_events(audit_id)
    return True


def _send_events(audit_id: int) -> None:
    try:
        alerts.audit_finished(audit_id)
    except Exception:
        # The audit is stored; a failure to queue its alerts must not undo it.
        logger.exception("Could not queue the alerts of audit %s", audit_id)


# --- Recovery -----------------------------------------------------------------


def requeue_stale_audits() -> int:
    """Queue again every audit start no task will run (its worker died, or the backend was down).

    A start that a worker took REPORTS_AUDIT_START_ATTEMPTS times without finishing fails the
    audit instead, with the cause: one that kills or crashes its worker would be retried forever.
    """
    stale = Audit.objects.filter(
        status__in=[Audit.Status.QUEUED, Audit.Status.RUNNING], lease_until__lt=timezone.now()
    ).values_list("pk", "status", "start_attempts")
    requeued = 0
    for audit_id, state, attempts in stale:
        still_stale = Audit.objects.filter(pk=audit_id, status=state, lease_until__lt=timezone.now())
        if state == Audit.Status.RUNNING and attempts >= settings.REPORTS_AUDIT_START_ATTEMPTS:
            still_stale.update(
                status=Audit.Status.FAILED,
                error=START_GAVE_UP.format(attempts=attempts),
                lease_until=None,
                finished_at=timezone.now(),
            )
            continue
        with transaction.atomic():
            if still_stale.update(status=Audit.Status.QUEUED, lease_until=None):
                start_audit.enqueue(audit_id)
                requeued += 1
    if requeued:
        logger.warning("Queued %d audit start(s) again that no worker was running.", requeued)
    return requeued
