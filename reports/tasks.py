"""Reports' analyses on Django's tasks framework: queue, run exactly once, wait a little, recover.

The report row carries the analysis' state (`Report.status`): queued → running →
done or failed. Every analysis queued for a report gets the next `analysis_run`
number, and the task claims the report for that number with one conditional
UPDATE, so a duplicate task, a superseded one (the report was queued again) or
one whose report is gone does nothing. A running analysis renews
`lease_until`; when its worker dies (kill -9, lost machine), the lease passes and
`requeue_stale_analyses()` queues the report again under the next number, so the
analysis completes once, and a late finish of the old run is discarded. An analysis
the backend could not take (TASKS_BACKEND=rq with Redis down) stays `queued` with a
lease already passed, and the same sweep queues it once the backend answers again.

    from reports import tasks

    with transaction.atomic():
        report.save()
        queued = tasks.enqueue_analysis_in_transaction(report)  # the database backend: with the row
    if not queued:
        tasks.enqueue_analysis(report)  # another backend: once the row is committed
    report = tasks.wait_for_analysis(report)  # finished, or as it is after REPORTS_ANALYSIS_WAIT
    tasks.requeue_stale_analyses()  # the worker calls it every few seconds

The backend is whatever settings.TASKS names (TASKS_BACKEND: database, rq, immediate).
"""

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import datetime, timedelta
from functools import cache
from typing import Protocol
from urllib.parse import urlsplit

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, router, transaction
from django.tasks import task
from django.utils import timezone
from django_tasks_db.backend import DatabaseBackend
from django_tasks_db.models import DBTaskResult
from redis.exceptions import RedisError

from common import metrics
from common.cache import RedisOutage
from reports import webhooks
from reports.analysis import AnalysisError, analyze
from reports.audits import hosts as audit_hosts
from reports.models import SCORE_CATEGORIES, Report

logger = logging.getLogger(__name__)

UNEXPECTED_FAILURE = "The analysis failed unexpectedly; run it again later."
# How often a waiting request looks at the report: first soon, then less often.
FIRST_POLL_SECONDS = 0.05
MAX_POLL_SECONDS = 0.25


def analysis_failure_message(reason: object) -> str:
    """The error stored on a report whose page could not be fetched or analysed (the API answers it in a 422)."""
    return f"The page could not be analysed: {reason}"


def _lease_end() -> datetime:
    return timezone.now() + timedelta(seconds=settings.REPORTS_ANALYSIS_LEASE)


# The task backend's Redis (TASKS_BACKEND=rq) as this process sees it: one warning per minute while it is down.
backend_outage = RedisOutage(
    "new analyses stay queued in the database and `manage.py analysis_worker` queues them on it once it answers",
    log=logger,
)


def enqueue_analysis(report: Report) -> None:
    """Queue the report's analysis run; call it once the report row with that run is committed.

    When the task backend cannot be reached, the report stays queued with its lease set to
    now, which means "on no queue": requeue_stale_analyses() queues it once the backend answers.
    """
    try:
        analyze_report.enqueue(report.pk, report.analysis_run)
    except RedisError as exc:
        backend_outage.failed(exc)
        report.lease_until = timezone.now()
        Report.objects.filter(pk=report.pk, analysis_run=report.analysis_run, status=Report.Status.QUEUED).update(
            lease_until=report.lease_until
        )
    else:
        backend_outage.recovered()


def enqueue_analysis_in_transaction(report: Report) -> bool:
    """Queue the report's analysis run inside the caller's transaction if the queue is in the same database.

    Return whether it did. With the database backend the task's row then commits, or rolls
    back, with the report's, so a process killed between storing a report and queuing its
    analysis cannot leave it queued on no queue. With another backend (RQ) it does nothing:
    a worker elsewhere could start before the commit and not find the row, so the caller
    queues with enqueue_analysis() once the transaction has committed.
    """
    backend = analyze_report.get_backend()
    if not isinstance(backend, DatabaseBackend) or router.db_for_write(DBTaskResult) != DEFAULT_DB_ALIAS:
        return False
    analyze_report.enqueue(report.pk, report.analysis_run)
    return True


class AuditCrawl(Protocol):
    """What the analyses need of site audits, whose pages are reports: reports/audits/crawl.py.

    The crawl queues its pages here, so it is the one built on this module: ReportsConfig.ready()
    hands it over with connect_audit_crawl() rather than this module importing it back.
    """

    def finish_page(self, audit_id: int, finish: Callable[[], bool], links: list[str]) -> bool: ...

    def requeue_stale_audits(self) -> int: ...


audit_crawl: AuditCrawl  # set by connect_audit_crawl()


def connect_audit_crawl(crawl: AuditCrawl) -> None:
    global audit_crawl
    audit_crawl = crawl


def _on_no_queue(report: Report) -> bool:
    """Whether the report waits for requeue_stale_analyses() because the backend could not take its analysis."""
    return report.status == Report.Status.QUEUED and report.lease_until is not None


@task()
def analyze_report(report_id: int, run: int) -> str:
    """Analyse the report's URL if `run` is still its queued analysis; return what became of it."""
    claimed = Report.objects.filter(pk=report_id, analysis_run=run, status=Report.Status.QUEUED).update(
        status=Report.Status.RUNNING, lease_until=_lease_end()
    )
    row = None
    if claimed:  # a site audit's page waits its audit's Crawl-delay between fetches (_crawl_slot)
        row = Report.objects.filter(pk=report_id).values_list("url", "audit_id", "audit__crawl_delay").first()
    if row is None:  # not this run's turn, or the report is gone
        return "skipped"
    url, audit_id, crawl_delay = row
    kind = "report" if audit_id is None else "audit_page"
    try:
        with _renewed_lease(report_id, run), _crawl_slot(report_id, run, url, audit_id, crawl_delay):
            started = time.perf_counter()
            analysis = analyze(url)
    except AnalysisError as exc:
        _store(report_id, run, audit_id, status=Report.Status.FAILED, error=analysis_failure_message(exc))
        _count_analysis(kind, "failed", started, metrics.failure_cause(str(exc)))
        return "failed"
    except Exception:
        _store(report_id, run, audit_id, status=Report.Status.FAILED, error=UNEXPECTED_FAILURE)
        _count_analysis(kind, "failed", started, "unexpected")
        raise  # the task backend records the traceback
    _count_analysis(kind, "done", started)
    # The results this analysis replaces: a re-run's alerts compare against them.
    before = Report.objects.filter(pk=report_id).values("score", "result", "results", "generated_at").first()
    finished = _store(
        report_id,
        run,
        audit_id,
        analysis.links,
        status=Report.Status.DONE,
        error="",
        score=analysis.score,
        result=analysis.rating,
        **{f"score_{category}": analysis.scores.get(category) for category in SCORE_CATEGORIES},
        results=analysis.results,
        rendering=analysis.rendering,
        generated_at=timezone.now(),
    )
    if not finished:
        return "superseded"
    if audit_id is not None:
        return "done"  # an audit's page: the audit sends its own events when it is done
    try:
        webhooks.analysis_finished(report_id, before)
    except Exception:
        # The analysis is stored; a failure to queue its alerts must not mark it failed.
        logger.exception("Could not queue the alerts of report %s", report_id)
    return "done"


def _count_analysis(kind: str, outcome: str, started: float, cause: str = "") -> None:
    """The analysis' duration (from its fetch, not its crawl slot's wait) and failure cause, for /metrics."""
    if not settings.METRICS_TOKEN:
        return
    metrics.ANALYSIS_SECONDS.labels(outcome, kind).observe(time.perf_counter() - started)
    if cause:
        metrics.ANALYSIS_FAILURES.labels(cause).inc()
    if kind == "audit_page":
        metrics.AUDIT_PAGES.labels(outcome).inc()


def _store(report_id: int, run: int, audit_id: int | None, links: list[str] = (), **fields: object) -> bool:
    """_finish, and for a site audit's page also follow its links, in one transaction (reports/audits/crawl.py)."""
    if audit_id is None:
        return _finish(report_id, run, **fields)
    return audit_crawl.finish_page(audit_id, lambda: _finish(report_id, run, **fields), list(links))


@contextmanager
def _crawl_slot(report_id: int, run: int, url: str, audit_id: int | None, crawl_delay: float) -> Iterator[None]:
    """For a site audit's page, one of its host's fetch slots, shared by every worker (reports/audits/hosts.py)."""
    if audit_id is None:
        yield
        return
    host = urlsplit(url).netloc.lower()
    with audit_hosts.host_slot(host, holder=f"report-{report_id}-{run}", crawl_delay=crawl_delay):
        yield


def _finish(report_id: int, run: int, **fields: object) -> bool:
    # Only the run that still holds the report writes: a run queued again after its
    # lease passed (or superseded by a newer request) leaves the newer run's outcome alone.
    return bool(
        Report.objects.filter(pk=report_id, analysis_run=run, status=Report.Status.RUNNING).update(
            lease_until=None, updated_at=timezone.now(), **fields
        )
    )


@contextmanager
def _renewed_lease(report_id: int, run: int) -> Iterator[None]:
    """Renew the report's lease in a thread while the block runs."""
    stop = threading.Event()

    def renew() -> None:
        try:
            while not stop.wait(settings.REPORTS_ANALYSIS_LEASE / 3):
                Report.objects.filter(pk=report_id, analysis_run=run, status=Report.Status.RUNNING).update(
                    lease_until=_lease_end()
                )
        except Exception:
            logger.exception("Could not renew the lease of report %s", report_id)
        finally:
            connections.close_all()  # this thread's own connections

    renewer = threading.Thread(target=renew, name=f"analysis-lease-{report_id}", daemon=True)
    renewer.start()
    try:
        yield
    finally:
        stop.set()
        renewer.join()


def requeue_stale_analyses() -> int:
    """Queue again, under the next run number, every analysis no task will run; return how many.

    That is a running analysis whose lease has passed (its worker died) and a queued one
    whose lease has passed (enqueue_analysis() could not reach the backend).
    """
    stale = Report.objects.filter(
        status__in=[Report.Status.QUEUED, Report.Status.RUNNING], lease_until__lt=timezone.now()
    ).values_list("pk", "status", "analysis_run")
    requeued = 0
    try:
        for report_id, state, run in stale:
            # The conditional UPDATE lets one of several workers sweeping at once requeue it. The
            # task is queued in the same transaction: with the database backend both commit
            # together, and a task on another engine that starts before the commit waits for
            # the row lock (PostgreSQL) or the database lock (SQLite) and then finds it queued.
            # The next run number also makes a task that did reach the backend despite an
            # error (a timeout after Redis took it) find itself superseded.
            if _queue_again(report_id, state, run):
                backend_outage.recovered()
                requeued += 1
    except RedisError as exc:
        backend_outage.failed(exc)  # still down: the rest keep their passed lease for the next sweep
    if requeued:
        logger.warning("Queued %d analysis(es) again that no worker was running or going to run.", requeued)
    try:
        audit_crawl.requeue_stale_audits()  # site audits' starts, whose worker died or whose backend was down
    except RedisError as exc:
        backend_outage.failed(exc)
    return requeued


def _queue_again(report_id: int, state: str, run: int) -> bool:
    with transaction.atomic():
        if Report.objects.filter(pk=report_id, analysis_run=run, status=state).update(
            status=Report.Status.QUEUED, analysis_run=run + 1, lease_until=None
        ):
            analyze_report.enqueue(report_id, run + 1)  # if it raises, the UPDATE is rolled back
            return True
    return False


def hand_back_analysis(report_id: int, run: int) -> bool:
    """Queue again, under the next run number, an analysis its stopping worker is still running.

    A worker asked to stop calls it for each analysis that did not finish in its grace, so
    that the next worker runs it at once rather than when its lease passes; if the old run
    still finishes, its result is discarded (it no longer holds the report). False when the
    run no longer holds the report (it finished, or was superseded).
    """
    return _queue_again(report_id, Report.Status.RUNNING, run)


@cache
def _wait_slots(size: int) -> threading.BoundedSemaphore:
    return threading.BoundedSemaphore(size)


def wait_for_analysis(report: Report) -> Report:
    """Wait up to REPORTS_ANALYSIS_WAIT for the report's analysis if a waiting slot is free; return it refreshed.

    At most REPORTS_ANALYSIS_WAIT_SLOTS requests of this process wait at once; the
    others return at once, so a burst of slow analyses never holds more than that
    many of the process's request threads.
    """
    if report.is_finished or _on_no_queue(report):
        return report
    slots = settings.REPORTS_ANALYSIS_WAIT_SLOTS
    if slots and settings.REPORTS_ANALYSIS_WAIT > 0 and _wait_slots(slots).acquire(blocking=False):
        try:
            _poll_until_finished(report.pk, time.monotonic() + settings.REPORTS_ANALYSIS_WAIT)
        finally:
            _wait_slots(slots).release()
    # Deleted meanwhile (e.g. with its project): the caller answers with the report as it was made.
    with suppress(Report.DoesNotExist):
        report.refresh_from_db()
    return report


def _poll_until_finished(report_id: int, deadline: float) -> None:
    finished = (Report.Status.DONE, Report.Status.FAILED)
    pause = FIRST_POLL_SECONDS
    while time.monotonic() < deadline:
        status = Report.objects.filter(pk=report_id).values_list("status", flat=True).first()
        if status is None or status in finished:
            return
        time.sleep(min(pause, max(deadline - time.monotonic(), 0)))
        pause = min(pause * 2, MAX_POLL_SECONDS)


# /healthz asks analyses_unclaimed() on every probe, and its two queries were two thirds of a
# probe's time (1.6 of 2.8 ms). What they tell changes over a lease (30 s by default), so each
# process asks the database at most this often; the database itself is still asked every time.
UNCLAIMED_RECHECK_SECONDS = 1.0
_last_unclaimed: tuple[float, bool] | None = None  # (time.monotonic() when asked, the answer)


def analyses_unclaimed() -> bool:
    """Whether no worker is taking the queued analyses: /healthz then says "degraded": ["analyses"].

    That is, with the database backend (make run's), a task has been ready for longer than
    REPORTS_ANALYSIS_LEASE and no task at all was started in that time: no worker runs, or
    every one is stuck. A busy worker with a long queue keeps starting tasks, so it is not
    reported. Other backends have their own workers and monitoring: always False. The answer
    is at most UNCLAIMED_RECHECK_SECONDS old.
    """
    global _last_unclaimed
    now = time.monotonic()
    last = _last_unclaimed
    if last is not None and now - last[0] < UNCLAIMED_RECHECK_SECONDS:
        return last[1]
    unclaimed = _analyses_unclaimed_now()
    _last_unclaimed = (now, unclaimed)
    return unclaimed


def forget_unclaimed() -> None:
    """Ask the database on the next call (tests, which change the queue between probes)."""
    global _last_unclaimed
    _last_unclaimed = None


def _analyses_unclaimed_now() -> bool:
    if not isinstance(analyze_report.get_backend(), DatabaseBackend):
        return False
    since = timezone.now() - timedelta(seconds=settings.REPORTS_ANALYSIS_LEASE)
    tasks = DBTaskResult.objects.filter(backend_name=analyze_report.backend)
    # The first query uses the partial index of ready tasks and is empty on a healthy service.
    if not tasks.ready().filter(enqueued_at__lt=since).exists():
        return False
    return not tasks.filter(started_at__gte=since).exists()
