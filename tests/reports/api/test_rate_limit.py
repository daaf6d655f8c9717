import pytest
from django.core.cache import cache
from rest_framework import status

from common.models import LimitCounter
from reports.models import Report
from tests.reports.asserts import assert_reports_error

pytestmark = pytest.mark.django_db


def test_successful_answers_carry_the_rate_limit_headers(owner_client, settings):
    settings.REPORTS_RATE_LIMIT = 5

    response = owner_client.get("/api/v1/reports")

    assert response.status_code == status.HTTP_200_OK
    assert response["X-RateLimit-Limit"] == "5"
    assert response["X-RateLimit-Remaining"] == "4"


def test_requests_over_the_limit_are_refused_with_429(owner_client, settings):
    settings.REPORTS_RATE_LIMIT = 3
    for _ in range(3):
        assert owner_client.get("/api/v1/reports").status_code == status.HTTP_200_OK

    response = owner_client.get("/api/v1/reports")

    assert_reports_error(response, 429)
    assert response["X-RateLimit-Limit"] == "3"
    assert response["X-RateLimit-Remaining"] == "0"
    assert 0 < int(response["Retry-After"]) <= 60


def test_rate_limit_counts_each_key_separately(owner_client, other_client, settings):
    settings.REPORTS_RATE_LIMIT = 1
    owner_client.get("/api/v1/reports")

    response = other_client.get("/api/v1/reports")

    assert response.status_code == status.HTTP_200_OK
    assert_reports_error(owner_client.get("/api/v1/reports"), 429)


def test_rate_limit_covers_writes_too(owner_client, settings):
    settings.REPORTS_RATE_LIMIT = 1
    owner_client.get("/api/v1/reports")

    response = owner_client.post("/api/v1/reports", {"url": "https://example.com/"})

    assert_reports_error(response, 429)
    assert not Report.objects.exists()


def test_without_redis_requests_answered_by_other_processes_count_too(owner_client, settings):
    settings.REPORTS_RATE_LIMIT = 3
    statuses = []
    for _ in range(4):
        cache.clear()  # the next request lands on another process, whose memory has counted nothing
        statuses.append(owner_client.get("/api/v1/reports").status_code)

    assert statuses == [200, 200, 200, 429]


def test_with_redis_the_rate_limit_counts_there_not_in_the_database(owner_client, settings):
    settings.REDIS_URL = "redis://127.0.0.1:6379/0"  # the tests' cache stands for it
    settings.REPORTS_RATE_LIMIT = 3
    statuses = [owner_client.get("/api/v1/reports").status_code for _ in range(4)]

    assert statuses == [200, 200, 200, 429]
    assert not LimitCounter.objects.exists()  # no database write per request where Redis counts
