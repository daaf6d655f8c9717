"""Scope and expiry of interface A's keys (issue 44): a read key reads and writes nothing, an expired key
is refused like a revoked one, and neither check costs a request a query."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from rest_framework import status
from rest_framework.test import APIClient

from common.permissions import READ_ONLY_KEY
from reports.models import ApiKey, Project, Report
from tests.reports.asserts import assert_reports_error
from tests.reports.factories import ProjectFactory, ReportFactory

pytestmark = pytest.mark.django_db


def client_with(raw_key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
    return client


@pytest.fixture
def read_client(user) -> APIClient:
    return client_with(ApiKey.issue(user=user, scope="read")[1])


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/reports",
        "/api/v1/reports/{report}",
        "/api/v1/projects",
        "/api/v1/projects/{project}/webhooks",
        "/api/v1/audits",
    ],
)
def test_a_read_key_reads(read_client, user, path):
    report = ReportFactory(owner=user)

    response = read_client.get(path.format(report=report.pk, project=report.project.name))

    assert response.status_code == status.HTTP_200_OK, response.content[:300]


def test_a_read_key_may_ask_for_options_and_heads(read_client, user):
    assert read_client.options("/api/v1/reports").status_code == status.HTTP_200_OK
    assert read_client.head("/api/v1/reports").status_code == status.HTTP_200_OK


def test_a_read_key_cannot_create_a_report(read_client):
    response = read_client.post("/api/v1/reports", {"url": "https://example.com/"})

    assert_reports_error(response, 403, READ_ONLY_KEY)
    assert not Report.objects.exists()
    assert not Project.objects.exists()


def test_a_read_key_cannot_change_or_delete(read_client, user):
    report = ReportFactory(owner=user, privacy=Report.Privacy.PUBLIC)
    project = ProjectFactory(owner=user)

    responses = [
        read_client.patch(f"/api/v1/reports/{report.pk}", {"privacy": 1}, format="json"),
        read_client.delete(f"/api/v1/reports/{report.pk}"),
        read_client.patch(f"/api/v1/projects/{project.name}", {"budget": {"min_score": 90}}, format="json"),
        read_client.delete(f"/api/v1/projects/{project.name}"),
        read_client.post(f"/api/v1/projects/{project.name}/webhooks", {"url": "https://example.com/hook"}),
        read_client.post("/api/v1/audits", {"url": "https://example.com/"}),
    ]

    for response in responses:
        assert_reports_error(response, 403, READ_ONLY_KEY)
    assert Report.objects.get().privacy == Report.Privacy.PUBLIC
    assert Project.objects.get(pk=project.pk).budget == {}
    assert not project.webhooks.exists()


def test_a_write_key_still_writes(user):
    report = ReportFactory(owner=user)
    client = client_with(ApiKey.issue(user=user, scope="write")[1])

    response = client.delete(f"/api/v1/reports/{report.pk}")

    assert response.status_code == status.HTTP_200_OK
    assert not Report.objects.exists()


def test_an_expired_key_is_refused_like_a_revoked_one(user):
    now = timezone.now()
    _expiring, expiring_key = ApiKey.issue(user=user, expires_at=now + timedelta(hours=1))
    revoked, revoked_key = ApiKey.issue(user=user)
    revoked.revoke()

    with time_machine.travel(now + timedelta(minutes=59), tick=False):
        before = client_with(expiring_key).get("/api/v1/reports")
    with time_machine.travel(now + timedelta(hours=1), tick=False):
        expired = client_with(expiring_key).get("/api/v1/reports")
        refused = client_with(revoked_key).get("/api/v1/reports")

    assert before.status_code == status.HTTP_200_OK
    assert_reports_error(expired, 401)
    assert (expired.status_code, expired.content, expired["WWW-Authenticate"]) == (
        refused.status_code,
        refused.content,
        refused["WWW-Authenticate"],
    )
