"""The report counts the database keeps (per project and per owner) equal the reports, whatever writes them.

The unfiltered GET /api/v1/reports answers `meta.total` from OwnerReportCount, `project=` from
Project.report_count: both kept by triggers (migrations 0008_scale, 0009_owner_report_count).
"""

import itertools
import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction

from reports import services
from reports.models import OwnerProjectCount, OwnerReportCount, Project, Report
from reports.projects import project_get_or_create
from tests.concurrency import run_concurrently
from tests.factories import UserFactory
from tests.reports.factories import ProjectFactory, ReportFactory

URL = "/api/v1/reports"


def owner_counts() -> dict[int, int]:
    return dict(OwnerReportCount.objects.filter(report_count__gt=0).values_list("owner_id", "report_count"))


def raw_owner_counts() -> dict[int, int]:
    counts: dict[int, int] = {}
    for owner_id in Report.objects.values_list("owner_id", flat=True):
        counts[owner_id] = counts.get(owner_id, 0) + 1
    return counts


def raw_project_counts() -> dict[int, int]:
    return {project.pk: Report.objects.filter(project=project).count() for project in Project.objects.all()}


@pytest.mark.django_db
def test_counts_follow_creates_bulk_creates_moves_and_deletes(user, other_user):
    first, second = ProjectFactory(owner=user), ProjectFactory(owner=user)
    ReportFactory.create_batch(3, owner=user, project=first)
    ReportFactory.create_batch(2, owner=other_user)
    Report.objects.bulk_create(
        [Report(owner=user, project=second, url=f"https://x.example/{n}", results={}) for n in range(4)]
    )
    moved = Report.objects.filter(project=first).first()
    moved.project = second
    moved.save(update_fields=["project"])
    Report.objects.filter(project=second).order_by("id")[:1].get().delete()
    Report.objects.filter(owner=other_user)[:1].get().delete()

    assert owner_counts() == raw_owner_counts() == {user.pk: 6, other_user.pk: 1}
    assert dict(Project.objects.values_list("pk", "report_count")) == raw_project_counts()


@pytest.mark.django_db
def test_counts_follow_a_deleted_project_and_a_deleted_user(user, other_user):
    doomed = ProjectFactory(owner=user)
    ReportFactory.create_batch(3, owner=user, project=doomed)
    ReportFactory.create_batch(2, owner=user)
    ReportFactory.create_batch(2, owner=other_user)

    services.project_delete(project=doomed)
    assert owner_counts() == raw_owner_counts() == {user.pk: 2, other_user.pk: 2}

    get_user_model().objects.filter(pk=other_user.pk).delete()
    assert owner_counts() == raw_owner_counts() == {user.pk: 2}


@pytest.mark.django_db
def test_the_unfiltered_total_is_the_kept_count_for_owner_other_and_anonymous(
    owner_client, other_client, api_client, user
):
    ReportFactory.create_batch(12, owner=user)

    # The total is read from the kept row: proven by making it disagree with the reports.
    OwnerReportCount.objects.filter(owner=user).update(report_count=40)
    body = owner_client.get(URL).json()
    assert (body["meta"]["total"], body["meta"]["last_page"], body["meta"]["total_is_estimate"]) == (40, 4, False)

    OwnerReportCount.objects.filter(owner=user).update(report_count=12)
    body = owner_client.get(URL, {"page": 2}).json()
    assert (body["meta"]["total"], len(body["data"]), body["links"]["next"]) == (12, 2, None)
    assert other_client.get(URL).json()["meta"]["total"] == 0
    assert api_client.get(URL).status_code == 401


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_creates_and_deletes_keep_the_counts_exact(user):
    project = ProjectFactory(owner=user)
    ReportFactory.create_batch(8, owner=user, project=project)
    doomed = list(Report.objects.values_list("pk", flat=True))

    numbers, lock = itertools.count(), threading.Lock()

    def write() -> None:
        with lock:
            number = next(numbers)
        with transaction.atomic():
            if number % 2:
                Report.objects.filter(pk=doomed[number // 2]).delete()
            else:
                ReportFactory.create_batch(3, owner=user, project=project)
                other = UserFactory()
                ReportFactory(owner=other)

    assert run_concurrently(write, times=16) == [None] * 16

    assert owner_counts() == raw_owner_counts()
    assert owner_counts()[user.pk] == 8 - 8 + 8 * 3
    assert dict(Project.objects.values_list("pk", "report_count")) == raw_project_counts()


def project_counts() -> dict[int, int]:
    return dict(OwnerProjectCount.objects.filter(project_count__gt=0).values_list("owner_id", "project_count"))


def raw_project_owner_counts() -> dict[int, int]:
    counts: dict[int, int] = {}
    for owner_id in Project.objects.values_list("owner_id", flat=True):
        counts[owner_id] = counts.get(owner_id, 0) + 1
    return counts


@pytest.mark.django_db
def test_project_counts_follow_creates_deletes_and_a_deleted_user(user, other_user):
    project_get_or_create(owner=user, name="a.example")
    project_get_or_create(owner=user, name="a.example")  # found, not made again
    ReportFactory(owner=user, url="https://b.example/")  # its project is made with it
    Project.objects.bulk_create([Project(owner=other_user, name=f"{n}.example") for n in range(3)])
    services.project_delete(project=Project.objects.get(owner=user, name="a.example"))

    assert project_counts() == raw_project_owner_counts() == {user.pk: 1, other_user.pk: 3}

    get_user_model().objects.filter(pk=other_user.pk).delete()
    assert project_counts() == raw_project_owner_counts() == {user.pk: 1}


@pytest.mark.django_db
def test_the_project_lists_total_is_the_kept_count_unless_searched(
    owner_client, other_client, api_client, client, user
):
    for n in range(3):
        ProjectFactory(owner=user, name=f"p{n}.example")
    # Read from the kept row: proven by making it disagree with the projects.
    OwnerProjectCount.objects.filter(owner=user).update(project_count=30)

    listed = owner_client.get("/api/v1/projects").json()["meta"]
    searched = owner_client.get("/api/v1/projects", {"search": "p1"}).json()["meta"]
    client.force_login(user)
    page = client.get("/reports/projects")

    assert (listed["total"], listed["last_page"], listed["total_is_estimate"]) == (30, 3, False)
    assert (searched["total"], searched["total_is_estimate"]) == (1, False)
    assert page.context["page"].paginator.count == 30
    assert other_client.get("/api/v1/projects").json()["meta"]["total"] == 0
    assert api_client.get("/api/v1/projects").status_code == 401


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_project_creates_and_deletes_keep_the_count_exact(user):
    doomed = [ProjectFactory(owner=user, name=f"old{n}.example") for n in range(8)]
    numbers, lock = itertools.count(), threading.Lock()

    def write() -> None:
        with lock:
            number = next(numbers)
        if number % 2:
            services.project_delete(project=doomed[number // 2])
        else:
            # Two threads share each name: get_or_create makes it once.
            project_get_or_create(owner=user, name=f"new{number // 4}.example")

    assert run_concurrently(write, times=16) == [None] * 16

    assert project_counts() == raw_project_owner_counts() == {user.pk: 4}
