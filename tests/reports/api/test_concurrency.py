"""Parallel requests, each thread on its own database connection (PostgreSQL for real row locks)."""

import itertools
import threading
import time

import pytest
from django.db import connection
from rest_framework.test import APIClient

from reports.models import ApiKey, Project, Report
from reports.projects import project_get_or_create
from tests.concurrency import run_concurrently

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_parallel_get_or_create_of_one_project_makes_one(user):
    results = run_concurrently(lambda: project_get_or_create(owner=user, name="shop.example"), times=8)

    assert all(isinstance(project, Project) for project in results)
    assert Project.objects.count() == 1
    assert {project.pk for project in results} == {Project.objects.get().pk}


def test_parallel_creates_for_one_host_share_one_project(user, test_site):
    _, raw_key = ApiKey.issue(user=user)

    def create() -> int:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
        return client.post("/api/v1/reports", {"url": test_site.url("/good")}).status_code

    statuses = run_concurrently(create, times=6)

    assert statuses == [201] * 6
    assert Project.objects.count() == 1
    assert Report.objects.filter(project=Project.objects.get()).count() == 6


def test_parallel_requests_cannot_exceed_the_rate_limit(user, settings):
    settings.REPORTS_RATE_LIMIT = 4
    _, raw_key = ApiKey.issue(user=user)

    def list_reports() -> int:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
        return client.get("/api/v1/reports").status_code

    statuses = run_concurrently(list_reports, times=10)

    assert sorted(statuses) == [200] * 4 + [429] * 6


def a_delete_waits_for_a_lock() -> bool:
    """Whether a DELETE on this test's database is waiting for a lock (read on this connection)."""
    with connection.cursor() as cursor:
        # pg_stat_activity is read once per transaction unless this snapshot is dropped.
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        # The waiter may queue behind another create waiting for the same row, so it is
        # not always this connection that pg_blocking_pids names: any wait on this database counts.
        cursor.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database()"
            " AND cardinality(pg_blocking_pids(pid)) > 0 AND query ILIKE 'DELETE%%')"
        )
        return cursor.fetchone()[0]


def test_deleting_a_project_while_reports_are_created_in_it_never_fails(user, test_site, monkeypatch):
    _, raw_key = ApiKey.issue(user=user)
    full_clean = Report.full_clean
    creating = threading.Event()
    overlapped = threading.Event()

    def full_clean_until_a_delete_waits(report, *args, **kwargs):
        # Hold the window between finding the project (row-locked) and saving the report open
        # until a delete is seen waiting for a lock: that wait is the race, proven.
        creating.set()
        deadline = time.monotonic() + 10
        while not overlapped.is_set() and time.monotonic() < deadline:
            if a_delete_waits_for_a_lock():
                overlapped.set()
            else:
                time.sleep(0.01)
        return full_clean(report, *args, **kwargs)

    monkeypatch.setattr(Report, "full_clean", full_clean_until_a_delete_waits)
    url = test_site.url("/good")
    host = Project.name_for_url(url)
    project_get_or_create(owner=user, name=host)
    turns = itertools.count()

    def create_or_delete() -> int:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
        if next(turns) % 2:
            creating.wait(timeout=10)
            return client.delete(f"/api/v1/projects/{host}").status_code
        return client.post("/api/v1/reports", {"url": url}).status_code

    statuses = run_concurrently(create_or_delete, times=8)

    assert overlapped.is_set(), "no delete ever waited on a create: the race did not happen"
    # A report deleted with its project before its analysis ran is answered as queued (202).
    assert set(statuses) <= {200, 201, 202, 404}
    assert statuses.count(201) + statuses.count(202) == 4
    assert 200 in statuses
    assert not Report.objects.exclude(project__in=Project.objects.all()).exists()


def test_deleting_reports_while_their_project_is_deleted_never_fails(user):
    # Each report delete updates its project's kept count (a trigger), and a project delete
    # removes its reports: both must take the project's row first, or they deadlock.
    _, raw_key = ApiKey.issue(user=user)
    project = project_get_or_create(owner=user, name="shop.example")
    reports = [
        Report.objects.create(owner=user, project=project, url=f"https://shop.example/{n}", results={})
        for n in range(7)
    ]
    targets = iter([f"/api/v1/reports/{report.pk}" for report in reports] + ["/api/v1/projects/shop.example"])
    lock = threading.Lock()

    def delete() -> int:
        with lock:
            path = next(targets)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
        return client.delete(path).status_code

    for _ in range(3):
        statuses = run_concurrently(delete, times=8)
        assert set(statuses) <= {200, 404}, statuses
        assert not Report.objects.filter(owner=user).exists()
        project = project_get_or_create(owner=user, name="shop.example")
        reports = [
            Report.objects.create(owner=user, project=project, url=f"https://shop.example/{n}", results={})
            for n in range(7)
        ]
        targets = iter([f"/api/v1/reports/{report.pk}" for report in reports] + ["/api/v1/projects/shop.example"])
