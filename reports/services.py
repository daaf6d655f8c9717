"""Writes of interface A: every caller (API, admin) goes through here.

A report is stored at once with status `queued`, and its analysis runs on a task
worker (reports/tasks.py): creating or re-running a report only queues it, and
the caller may then wait a little for it with `tasks.wait_for_analysis`. With the
database task backend the task is queued in the transaction that stores the report;
with another one, once that transaction has committed.
"""

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F, QuerySet

from reports import schedules, tasks, webhooks
from reports.models import Project, Report, Webhook
from reports.projects import project_get_or_create


def report_create(
    *, owner: AbstractBaseUser, url: str, privacy: int = Report.Privacy.PUBLIC, password: str = ""
) -> Report:
    """Store a report of `url` in the project of its host (made if need be) and queue its analysis."""
    with transaction.atomic():
        project = project_get_or_create(owner=owner, name=Project.name_for_url(url))
        report = Report(owner=owner, project=project, url=url, status=Report.Status.QUEUED, analysis_run=1)
        report.set_privacy(privacy, password)
        report.full_clean()
        report.save()
        queued = tasks.enqueue_analysis_in_transaction(report)
    if not queued:
        tasks.enqueue_analysis(report)
    return report


def report_create_and_wait(
    *, owner: AbstractBaseUser, url: str, privacy: int = Report.Privacy.PUBLIC, password: str = ""
) -> Report:
    """The API's create: store and queue the report, wait a little for its analysis, and
    discard it if that analysis failed (the caller answers 422 and nothing stays behind).

    The report is returned as it was last seen: done, failed (then deleted) or still
    queued or running; the caller picks the HTTP status from that.
    """
    report = report_create(owner=owner, url=url, privacy=privacy, password=password)
    report = tasks.wait_for_analysis(report)
    if report.status == Report.Status.FAILED:
        report_discard(report=report)
    return report


def report_update(
    *, report: Report, privacy: int | None = None, password: str | None = None, rerun: bool = False
) -> Report:
    """Change the page's privacy/password and, with `rerun`, queue a new analysis of the URL."""
    changed = ["updated_at"]
    if privacy is not None or password:
        report.set_privacy(report.privacy if privacy is None else privacy, password)
        changed += ["privacy", "password"]
    report.full_clean()
    queued = False
    with transaction.atomic():
        # Only the fields this call changed: a parallel update of the others is kept.
        report.save(update_fields=changed)
        if rerun:
            _queue_again(report)
            queued = tasks.enqueue_analysis_in_transaction(report)
    if rerun and not queued:
        tasks.enqueue_analysis(report)
    return report


def _queue_again(report: Report) -> None:
    # The next run number supersedes any analysis of the report still queued or running.
    Report.objects.filter(pk=report.pk).update(
        status=Report.Status.QUEUED, analysis_run=F("analysis_run") + 1, error="", lease_until=None
    )
    report.refresh_from_db(fields=["status", "analysis_run", "error", "lease_until", "updated_at"])


def report_refresh(*, report: Report) -> Report:
    """Queue a new analysis of the report's URL (new results, score, rating and generated_at once done)."""
    return report_update(report=report, rerun=True)


def report_discard(*, report: Report) -> None:
    """Delete a report whose first analysis failed, and its project if that leaves it empty.

    For a create that answers 422, as it did when analyses ran in the request: nothing
    stays behind. The project's row lock is the one report_create takes, so a report
    being added to the project meanwhile either is seen here or waits for the delete.
    """
    with transaction.atomic():
        project = Project.objects.select_for_update().filter(pk=report.project_id).first()
        Report.objects.filter(pk=report.pk).delete()
        if project is not None and not project.reports.exists():
            project.delete()


def reports_delete(*, reports: QuerySet[Report]) -> int:
    """Delete these reports; how many were deleted.

    Their projects' rows are locked first, in id order, as a project delete takes its row
    before its cascade reaches the reports: the trigger keeping Project.report_count updates
    those rows, and a delete that held a report's row while waiting for its project's would
    deadlock with a parallel delete of that project.
    """
    with transaction.atomic():
        project_ids = set(reports.values_list("project_id", flat=True))
        locked = Project.objects.select_for_update().filter(pk__in=project_ids).order_by("pk")
        list(locked.values_list("pk", flat=True))
        deleted, _ = Report.objects.filter(pk__in=list(reports.values_list("pk", flat=True))).delete()
    return deleted


def report_delete(*, report: Report) -> bool:
    """Delete the report; its project stays, even when this was its last report (see reports_delete).

    False if it was already gone.
    """
    return reports_delete(reports=Report.objects.filter(pk=report.pk)) > 0


def project_delete(*, project: Project) -> None:
    """Delete the project and, through the database cascade, all its reports."""
    project.delete()


_UNSET = object()


def project_update(
    *, project: Project, budget: object = _UNSET, alert_email: object = _UNSET, schedule: object = _UNSET
) -> Project:
    """Set the project's budget (a validated one; {} removes it), alert e-mail (None or "" removes it)
    and schedule (a changed one gets its next due time; None is "none")."""
    changed = []
    if schedule is not _UNSET:
        changed += schedules.schedule_set(project, schedule or Project.Schedule.NONE)
    if budget is not _UNSET:
        project.budget = budget or {}
        changed.append("budget")
    if alert_email is not _UNSET:
        project.alert_email = alert_email or ""
        changed.append("alert_email")
    project.full_clean()
    if changed:
        # Only the fields given: a parallel PATCH of the other one is kept.
        project.save(update_fields=changed)
    if "next_run_at" in changed:
        schedules.schedule_next(project)  # with RQ: its job on RQ's scheduler
    return project


def webhook_create(*, project: Project, url: str, events: list[str], secret: str | None = None) -> Webhook:
    """Add a webhook to the project; a secret is generated when none is given."""
    webhook = Webhook(project=project, url=url, events=events, secret=secret or webhooks.new_secret())
    webhook.full_clean()
    webhook.save()
    return webhook
