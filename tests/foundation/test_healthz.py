import re
import time
from datetime import timedelta
from pathlib import Path
from unittest import mock

import pytest
from django.db import OperationalError
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from rest_framework import status

from config import __version__
from reports import tasks

pytestmark = pytest.mark.django_db


def test_healthz_is_ok_when_the_database_answers(client):
    response = client.get("/healthz")

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"status": "ok", "version": __version__}


def test_healthz_is_503_when_the_database_is_down(client):
    with mock.patch("django.db.backends.utils.CursorWrapper.execute", side_effect=OperationalError("down")):
        response = client.get("/healthz")

    assert response.status_code == status.HTTP_503_SERVICE_UNAVAILABLE
    assert response.json() == {"status": "unavailable", "unavailable": ["database"], "version": __version__}
    assert response["Retry-After"] == "5"


DATABASE_BACKEND = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


@pytest.fixture
def queued_analysis(settings, user):
    """A report whose analysis was queued on the database backend; no worker runs here."""
    from reports.tasks import analyze_report
    from tests.reports.factories import ReportFactory

    settings.TASKS = DATABASE_BACKEND
    settings.REPORTS_ANALYSIS_LEASE = 30
    report = ReportFactory(owner=user)
    analyze_report.enqueue(report.pk, report.analysis_run)
    return DBTaskResult.objects.get()


def test_healthz_is_degraded_when_a_queued_analysis_waited_a_lease_and_no_worker_took_any(client, queued_analysis):
    DBTaskResult.objects.update(enqueued_at=timezone.now() - timedelta(seconds=31))

    response = client.get("/healthz")

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"status": "degraded", "degraded": ["analyses"], "version": __version__}


def test_healthz_is_ok_while_a_queued_analysis_waits_less_than_a_lease(client, queued_analysis):
    DBTaskResult.objects.update(enqueued_at=timezone.now() - timedelta(seconds=20))

    assert client.get("/healthz").json() == {"status": "ok", "version": __version__}


def test_healthz_is_ok_when_a_long_queue_waits_but_a_worker_is_taking_tasks(client, queued_analysis, user):
    from reports.tasks import analyze_report
    from tests.reports.factories import ReportFactory

    DBTaskResult.objects.update(enqueued_at=timezone.now() - timedelta(seconds=60))
    other = ReportFactory(owner=user)
    analyze_report.enqueue(other.pk, other.analysis_run)
    DBTaskResult.objects.exclude(pk=queued_analysis.pk).update(status="RUNNING", started_at=timezone.now())

    assert client.get("/healthz").json() == {"status": "ok", "version": __version__}


def test_healthz_remembers_the_analyses_answer_for_a_moment_and_then_asks_again(client, queued_analysis, monkeypatch):
    # The liveness of the analyses changes over a lease (30 s); every probe asking the database
    # twice for it was most of a probe's time, so each process asks it at most once a second.
    DBTaskResult.objects.update(enqueued_at=timezone.now() - timedelta(seconds=31))
    assert client.get("/healthz").json()["status"] == "degraded"

    DBTaskResult.objects.update(status="RUNNING", started_at=timezone.now())
    assert client.get("/healthz").json()["status"] == "degraded"  # the answer of a moment ago

    monkeypatch.setattr(tasks, "UNCLAIMED_RECHECK_SECONDS", 0.05)
    time.sleep(0.1)
    assert client.get("/healthz").json() == {"status": "ok", "version": __version__}


def test_healthz_the_openapi_document_and_the_changelog_name_one_version(client):
    # One number (config.__version__): a probe, an API client and a reader of CHANGELOG.md see the same release.
    changelog = (Path(__file__).resolve().parents[2] / "CHANGELOG.md").read_text()
    released = re.search(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", changelog, re.MULTILINE)
    schema = client.get("/api/schema/", {"format": "json"}).json()

    assert client.get("/healthz").json()["version"] == schema["info"]["version"] == released.group(1)
