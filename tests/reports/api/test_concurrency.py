"""Parallel requests, each thread on its own database connection (PostgreSQL for real row locks)."""

import pytest
from rest_framework.test import APIClient

from reports import services
from reports.models import ApiKey, Project, Report
from tests.concurrency import run_concurrently

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_parallel_get_or_create_of_one_project_makes_one(user):
    results = run_concurrently(lambda: services.project_get_or_create(owner=user, name="shop.example"), times=8)

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
