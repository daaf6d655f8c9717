"""Scheduled re-runs of projects: each period, exactly once, on the engine that runs the analyses.

A project's `schedule` (none, daily, weekly) and its stored `next_run_at` say when it is
due. Whoever runs a due project claims that period by moving `next_run_at` on, in the
same transaction that stores the re-run (project_rerun), so a period is run
once however many workers look, and a crash before the commit leaves it due:

- **database backend**: every `analysis_worker` calls `run_due_schedules()` in its loop.
  On PostgreSQL it picks a due project with `SELECT … FOR UPDATE SKIP LOCKED` (a project
  another worker is running is skipped, not waited for); on SQLite the claim is a
  conditional UPDATE of `next_run_at` inside an exclusive transaction.
- **RQ**: setting a schedule, and each run, queue `run_scheduled_project` for the due time
  with RQ's own scheduler (`run_after`, i.e. `Queue.schedule_job`; the RQ worker must run
  `--with-scheduler`). The job claims the period with the same conditional UPDATE, so a
  job of a changed schedule, or one delivered twice, does nothing. A job Redis lost (a
  flush, Redis down when it was queued) is queued again by `analysis_worker`'s sweep once
  its project is overdue by OVERDUE_GRACE.

A late run (no worker for three days) runs once, and the next due time is the first one
after now in the same phase (a daily run at 03:00 stays at 03:00): missed periods are not
made up one by one.
"""

import logging
from datetime import datetime, timedelta

from django.core.cache import cache
from django.db import transaction
from django.db.models import Max
from django.tasks import task
from django.utils import timezone
from django_tasks_db.backend import DatabaseBackend
from django_tasks_db.utils import exclusive_transaction
from redis.exceptions import RedisError

from reports import tasks
from reports.audits.services import audit_rerun
from reports.models import Audit, Project, ProjectSchedule, Report

logger = logging.getLogger(__name__)

PERIODS = {ProjectSchedule.DAILY: timedelta(days=1), ProjectSchedule.WEEKLY: timedelta(days=7)}
# With RQ, a project still due this long after its time has lost its job: the sweep queues another.
OVERDUE_GRACE = timedelta(minutes=2)


def first_due(schedule: str, now: datetime) -> datetime | None:
    """When a schedule set now is first due: one period from now (the reports are fresh), or None."""
    period = PERIODS.get(schedule)
    return None if period is None else now + period


def next_due(schedule: str, due: datetime, now: datetime) -> datetime | None:
    """The first due time after `now` in the phase of `due`: missed periods collapse into the run at hand."""
    period = PERIODS.get(schedule)
    if period is None:
        return None
    missed = max(0, (now - due) // period)
    return due + (missed + 1) * period


def uses_worker_claims() -> bool:
    """Whether the analysis workers run due schedules (the database backend) rather than RQ's scheduler."""
    return isinstance(run_scheduled_project.get_backend(), DatabaseBackend)


def uses_rq_scheduler() -> bool:
    backend = run_scheduled_project.get_backend()
    return backend.supports_defer and not isinstance(backend, DatabaseBackend)


def _claim(project: Project, now: datetime) -> bool:
    """Move the project's due time on if it is still `project.next_run_at`: the claim of this period."""
    return bool(
        Project.objects.filter(pk=project.pk, schedule=project.schedule, next_run_at=project.next_run_at).update(
            next_run_at=next_due(project.schedule, project.next_run_at, now), last_run_at=now
        )
    )


def _run_claimed(project: Project, now: datetime) -> bool:
    """Claim the period and re-run the project in the caller's transaction; whether this caller ran it."""
    if not _claim(project, now):
        return False
    project_rerun(project=project)
    return True


# A scheduled re-run analyses at most this many of a project's URLs (the most recently
# reported ones): as many as the largest site audit (REPORTS_AUDIT_MAX_PAGES' 500).
RERUN_MAX_URLS = 500


def project_rerun(*, project: Project) -> list[Report] | Audit:
    """What a scheduled run of the project does; call it inside the transaction that claims the period.

    A project with a site audit re-runs its last one (the new audit's pages are compared with
    the old one's for check.regressed); one without re-runs its reports' URLs.
    """
    last_audit = project.audits.order_by("-pk").first()
    if last_audit is not None:
        return audit_rerun(last_audit)
    return project_reports_rerun(project=project)


def project_reports_rerun(*, project: Project) -> list[Report]:
    """Queue a new report of each distinct URL of the project, like its latest report of that URL.

    New reports rather than re-analyses of the old ones, so the project keeps its history (the
    chart, comparisons, check.regressed against the previous report of the URL). Each copies
    the privacy of the URL's latest report and, for a password-protected one, its password hash:
    the same password opens the new report, and no password is ever needed in clear to do it.
    """
    latest = (
        project.reports.values("url")
        .annotate(latest=Max("pk"))
        .order_by("-latest")
        .values_list("latest", flat=True)[:RERUN_MAX_URLS]
    )
    sources = Report.objects.filter(pk__in=list(latest)).only("owner_id", "url", "privacy", "password").order_by("pk")
    with transaction.atomic():
        reports = Report.objects.bulk_create(
            Report(
                owner_id=source.owner_id,
                project=project,
                url=source.url,
                privacy=source.privacy,
                password=source.password,
                status=Report.Status.QUEUED,
                analysis_run=1,
            )
            for source in sources
        )
        for report in reports:
            if not tasks.enqueue_analysis_in_transaction(report):
                # Another backend: a worker elsewhere must not look before the rows are committed.
                transaction.on_commit(lambda report=report: tasks.enqueue_analysis(report))
    return reports


def run_due_schedules(*, limit: int = 10) -> int:
    """Run up to `limit` due projects, each in its own transaction; return how many this call ran.

    The analysis worker calls it every few seconds (database backend). A project whose run
    fails stays due (its transaction is rolled back) and is tried again at the next call; it
    is skipped for the rest of this one, so it cannot hold up the projects due after it.
    """
    ran = 0
    failed: set[int] = set()
    for _ in range(limit):
        project = _run_one_due(timezone.now(), failed)
        if project is None:
            break
        if project.pk not in failed:
            ran += 1
            _after_run(project)
    return ran


def _run_one_due(now: datetime, failed: set[int]) -> Project | None:
    """Run the project due first (adding it to `failed` if its run failed); None when none is due and free."""
    due = (
        Project.objects.filter(next_run_at__lte=now)
        .exclude(schedule=ProjectSchedule.NONE)
        .exclude(pk__in=failed)
        .order_by("next_run_at")
    )
    # A plain read first: on SQLite the exclusive transaction takes the database's one write
    # lock, which idle workers would otherwise take every few seconds.
    if not due.exists():
        return None
    with exclusive_transaction(due.db):
        project = due.select_for_update(skip_locked=True, of=("self",)).first()
        if project is None:
            return None
        try:
            with transaction.atomic(using=due.db):  # a savepoint: a failed run undoes its claim too
                if not _run_claimed(project, now):
                    return None
        except Exception:
            logger.exception("The scheduled run of project %s failed; it stays due", project.pk)
            failed.add(project.pk)
            return project
    logger.info("Ran the %s schedule of project %s", project.schedule, project.pk)
    return project


@task()
def run_scheduled_project(project_id: int, due: str) -> str:
    """RQ's scheduled job: re-run the project if `due` is still its due time; return what became of it."""
    now = timezone.now()
    with exclusive_transaction():
        project = (
            Project.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(pk=project_id, next_run_at=datetime.fromisoformat(due))
            .exclude(schedule=ProjectSchedule.NONE)
            .first()
        )
        if project is None or not _run_claimed(project, now):
            return "skipped"  # run already, rescheduled, or being run by another job
    _after_run(project)
    return "ran"


def _after_run(project: Project) -> None:
    project.refresh_from_db(fields=["schedule", "next_run_at", "last_run_at"])
    schedule_next(project)


def schedule_next(project: Project) -> None:
    """With RQ, queue the project's next run for its due time on RQ's scheduler; other backends need nothing.

    Call it once the row with that due time is committed. If Redis cannot take it, the sweep
    (queue_overdue_schedules) queues it once the project is overdue.
    """
    if project.next_run_at is None or not uses_rq_scheduler():
        return
    try:
        run_scheduled_project.using(run_after=project.next_run_at).enqueue(project.pk, project.next_run_at.isoformat())
    except RedisError:
        logger.warning("Could not queue the next scheduled run of project %s: the sweep will", project.pk)


def queue_overdue_schedules() -> int:
    """With RQ, queue at once the run of each project overdue by OVERDUE_GRACE (its job was lost); how many.

    `cache.add` lets one sweep per OVERDUE_GRACE queue a given due time (a shared Redis cache
    makes that one across all sweepers), so a stopped RQ worker does not pile jobs up.
    """
    if not uses_rq_scheduler():
        return 0
    overdue = (
        Project.objects.filter(next_run_at__lt=timezone.now() - OVERDUE_GRACE)
        .exclude(schedule=ProjectSchedule.NONE)
        .values_list("pk", "next_run_at")[:100]
    )
    queued = 0
    for project_id, due in overdue:
        if not cache.add(f"reports:schedule-overdue:{project_id}:{due.timestamp()}", 1, OVERDUE_GRACE.seconds):
            continue
        try:
            run_scheduled_project.enqueue(project_id, due.isoformat())
        except RedisError:
            cache.delete(f"reports:schedule-overdue:{project_id}:{due.timestamp()}")
            break
        queued += 1
    if queued:
        logger.warning("Queued %d overdue scheduled run(s) whose RQ job was lost.", queued)
    return queued


def schedule_set(project: Project, schedule: str, now: datetime | None = None) -> list[str]:
    """Set the project's schedule (unsaved); a changed one gets its due time recomputed. The fields changed."""
    if schedule == project.schedule:
        return []  # resending the same schedule must not postpone the next run
    project.schedule = schedule
    project.next_run_at = first_due(schedule, now or timezone.now())
    return ["schedule", "next_run_at"]
