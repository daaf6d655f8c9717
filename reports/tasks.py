"""Reports' analyses on Django's tasks framework: queue, run exactly once, wait a little, recover.

The report row carries the analysis' state (`Report.status`): queued → running →
done or failed. Every analysis queued for a report gets the next `analysis_run`
number, and the task claims the report for that number with one conditional
UPDATE, so a duplicate task, a superseded one (the report was queued again) or
one whose report is gone does nothing. A running analysis renews
`lease_until`; when its worker dies (kill -9, lost machine), the lease passes and
`requeue_stale_analyses()` queues the report again under the next number, so the
analysis completes once, and a late finish of the old run is discarded.

    from reports import tasks

    tasks.enqueue_analysis(report_id=report.pk, run=report.analysis_run)  # after the row is committed
    report = tasks.wait_for_analysis(report)  # finished, or as it is after REPORTS_ANALYSIS_WAIT
    tasks.requeue_stale_analyses()  # the worker calls it every few seconds

The backend is whatever settings.TASKS names (TASKS_BACKEND: database, rq, immediate).
"""

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import datetime, timedelta
from functools import cache

from django.conf import settings
from django.db import connections, transaction
from django.tasks import task
from django.utils import timezone

from reports.analysis import AnalysisError, analyze
from reports.errors import AnalysisFailed
from reports.models import Report

logger = logging.getLogger(__name__)

UNEXPECTED_FAILURE = "The analysis failed unexpectedly; run it again later."
# How often a waiting request looks at the report: first soon, then less often.
FIRST_POLL_SECONDS = 0.05
MAX_POLL_SECONDS = 0.25


def _lease_end() -> datetime:
    return timezone.now() + timedelta(seconds=settings.REPORTS_ANALYSIS_LEASE)


def enqueue_analysis(*, report_id: int, run: int) -> None:
    """Queue run `run` of the report's analysis; call it once the report row with that run is committed."""
    analyze_report.enqueue(report_id, run)


@task()
def analyze_report(report_id: int, run: int) -> str:
    """Analyse the report's URL if `run` is still its queued analysis; return what became of it."""
    claimed = Report.objects.filter(pk=report_id, analysis_run=run, status=Report.Status.QUEUED).update(
        status=Report.Status.RUNNING, lease_until=_lease_end()
    )
    url = Report.objects.filter(pk=report_id).values_list("url", flat=True).first() if claimed else None
    if url is None:  # not this run's turn, or the report is gone
        return "skipped"
    try:
        with _renewed_lease(report_id, run):
            analysis = analyze(url)
    except AnalysisError as exc:
        _finish(report_id, run, status=Report.Status.FAILED, error=str(AnalysisFailed(exc)))
        return "failed"
    except Exception:
        _finish(report_id, run, status=Report.Status.FAILED, error=UNEXPECTED_FAILURE)
        raise  # the task backend records the traceback
    finished = _finish(
        report_id,
        run,
        status=Report.Status.DONE,
        error="",
        score=analysis.score,
        result=analysis.rating,
        results=analysis.results,
        generated_at=timezone.now(),
    )
    return "done" if finished else "superseded"


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
    """Queue again every running analysis whose lease has passed (its worker died); return how many."""
    stale = Report.objects.filter(status=Report.Status.RUNNING, lease_until__lt=timezone.now()).values_list(
        "pk", "analysis_run"
    )
    requeued = 0
    for report_id, run in stale:
        # The conditional UPDATE lets one of several workers sweeping at once requeue it. The
        # task is queued in the same transaction: with the database backend both commit
        # together, and a task on another engine that starts before the commit waits for
        # the row lock (PostgreSQL) or the database lock (SQLite) and then finds it queued.
        with transaction.atomic():
            if Report.objects.filter(pk=report_id, analysis_run=run, status=Report.Status.RUNNING).update(
                status=Report.Status.QUEUED, analysis_run=run + 1, lease_until=None
            ):
                enqueue_analysis(report_id=report_id, run=run + 1)
                requeued += 1
    if requeued:
        logger.warning("Queued %d analysis(es) again whose worker stopped while running them.", requeued)
    return requeued


@cache
def _wait_slots(size: int) -> threading.BoundedSemaphore:
    return threading.BoundedSemaphore(size)


def wait_for_analysis(report: Report) -> Report:
    """Wait up to REPORTS_ANALYSIS_WAIT for the report's analysis if a waiting slot is free; return it refreshed.

    At most REPORTS_ANALYSIS_WAIT_SLOTS requests of this process wait at once; the
    others return at once, so a burst of slow analyses never holds more than that
    many of the process's request threads.
    """
    if report.is_finished:
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
