"""Writes of site audits: create, re-run, delete. Views, the admin and schedules call these."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from reports.audits import crawl
from reports.models import Audit, Project, Report
from reports.projects import project_get_or_create


class TooManyQueuedAudits(Exception):
    """The owner already has as many audits queued or running as `audit_create` was told to allow."""


def audit_create(
    *,
    owner: AbstractBaseUser,
    url: str,
    max_pages: int = 50,
    privacy: int = Report.Privacy.PUBLIC,
    password: str = "",
    project: Project | None = None,
    password_hash: str | None = None,
    start_after_commit: bool = False,
    max_queued: int | None = None,
) -> Audit:
    """Store an audit of the site at `url` (in `project`, else the project of its host) and queue its start.

    `start_after_commit`: queue it (RQ) once the caller's transaction commits, for a caller that
    creates the audit inside a transaction of its own, so that no worker looks for it before it is there.
    `max_queued`: raise TooManyQueuedAudits if the owner has that many audits queued or running.
    """
    with transaction.atomic():
        if max_queued is not None:
            # The owner's row lock makes two requests at once count one after the other.
            get_user_model().objects.select_for_update().filter(pk=owner.pk).exists()
            unfinished = Audit.objects.filter(owner=owner, status__in=[Audit.Status.QUEUED, Audit.Status.RUNNING])
            if unfinished.count() >= max_queued:
                raise TooManyQueuedAudits(
                    f"You have {max_queued} audits queued or running, the most allowed at once; "
                    "start this one when one of them is done."
                )
        if project is None:
            project = project_get_or_create(owner=owner, name=Project.name_for_url(url))
        audit = Audit(owner=owner, project=project, url=url, max_pages=max_pages, status=Audit.Status.QUEUED)
        audit.set_privacy(privacy, password)
        if password_hash is not None and privacy == Report.Privacy.PASSWORD:
            audit.password = password_hash  # a re-run keeps the page password it had
        audit.full_clean()
        audit.save()
        queued = crawl.enqueue_start_in_transaction(audit)
    if not queued:
        if start_after_commit:
            transaction.on_commit(lambda: crawl.enqueue_start(audit))
        else:
            crawl.enqueue_start(audit)
    return audit


def audit_rerun(audit: Audit) -> Audit:
    """Queue a new audit of the same start page, page limit and privacy, in the same project.

    The entry point for schedules (a project's `schedule` re-runs its last audit each period):
    the old audit stays, so the two can be compared (GET /api/v1/audits/{new}/compare?with={old}).
    """
    return audit_create(
        owner=audit.owner,
        url=audit.url,
        max_pages=audit.max_pages,
        privacy=audit.privacy,
        project=audit.project,
        password_hash=audit.password,
        start_after_commit=True,  # a scheduled run creates it in the transaction that claims the period
    )


def audit_delete(*, audit: Audit) -> bool:
    """Delete the audit and, through the database cascade, its pages; False if it was already gone.

    The project's row is locked first, as reports_delete does: the report count trigger
    updates it, and taking it after the reports' rows would deadlock with a project delete.
    """
    with transaction.atomic():
        list(Project.objects.select_for_update().filter(pk=audit.project_id).values_list("pk", flat=True))
        deleted, _ = Audit.objects.filter(pk=audit.pk).delete()
    return deleted > 0
