"""A start whose worker died is queued again by the sweep and adds nothing twice; a duplicate start does nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from reports import tasks
from reports.audits import crawl
from reports.models import Audit, Project, Report

pytestmark = pytest.mark.django_db


def test_a_start_whose_worker_died_is_queued_again_and_finishes_the_audit_once(user, audit_site):
    project = Project.objects.create(owner=user, name="localhost")
    audit = Audit.objects.create(
        owner=user,
        project=project,
        url=audit_site.url("/a"),
        status=Audit.Status.RUNNING,
        lease_until=timezone.now() - timedelta(seconds=1),
        started_at=timezone.now(),
    )
    # The dead start had added its first page before it died.
    Report.objects.create(owner=user, project=project, audit=audit, url=audit_site.url("/a"), analysis_run=1)

    assert tasks.requeue_stale_analyses() >= 0  # the workers' sweep, which also sweeps audit starts
    audit.refresh_from_db()

    assert audit.status == Audit.Status.DONE  # the immediate backend ran the start and the crawl
    urls = list(Report.objects.filter(audit=audit).values_list("url", flat=True))
    assert len(urls) == len(set(urls)) == audit.pages_found
    assert audit_site.url("/a") in urls and audit_site.url("/b") in urls
    assert audit.pages_done + audit.pages_failed == audit.pages_found


def test_a_second_start_task_for_the_same_audit_does_nothing(user, audit_site):
    audit = Audit.objects.create(
        owner=user, project=Project.objects.create(owner=user, name="localhost"), url=audit_site.url("/a")
    )

    assert crawl.start_audit.call(audit.pk) == "started"
    assert crawl.start_audit.call(audit.pk) == "skipped"
    assert Audit.objects.get(pk=audit.pk).status == Audit.Status.DONE
