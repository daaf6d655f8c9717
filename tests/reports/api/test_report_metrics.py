"""Lab metrics (issue 21, item 4): `metrics` in every report answer, null unless the page was rendered."""

import pytest
from rest_framework import status
from rest_framework.test import APIClient

from reports.models import Report
from tests.reports.asserts import assert_reports_error
from tests.reports.factories import ReportFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/reports"
METRICS = {
    "fcp": {"value": 1200, "unit": "ms", "rating": "good", "score": 0.99},
    "lcp": {"value": 3100, "unit": "ms", "rating": "needs-improvement", "score": 0.76},
    "tbt": {"value": 750, "unit": "ms", "rating": "poor", "score": 0.35},
    "cls": {"value": 0.02, "unit": "", "rating": "good", "score": 1.0},
    "profile": {"rtt_ms": 150, "throughput_kbps": 1638.4, "cpu_slowdown": 4},
}
RENDERED = {"document": "rendered", "render_ms": 2100, "metrics": METRICS}


def test_a_rendered_report_carries_its_lab_metrics(owner_client, user):
    report = ReportFactory(owner=user, rendering=RENDERED)

    response = owner_client.get(f"{URL}/{report.pk}")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["data"]["metrics"] == METRICS


def test_the_list_carries_them_too(owner_client, user):
    ReportFactory(owner=user, rendering=RENDERED)

    assert owner_client.get(URL).json()["data"][0]["metrics"]["tbt"]["rating"] == "poor"


@pytest.mark.parametrize(
    "rendering",
    [
        {"document": "source"},
        {"document": "source", "render_error": "Playwright is not installed"},
        {"document": "source", "render_skipped": "Chromium is not installed (REPORTS_RENDER=auto)"},
    ],
)
def test_a_page_read_as_served_has_no_metrics(owner_client, user, rendering):
    report = ReportFactory(owner=user, rendering=rendering)

    assert owner_client.get(f"{URL}/{report.pk}").json()["data"]["metrics"] is None


def test_an_analysis_in_source_mode_stores_null_metrics(owner_client, test_site):
    response = owner_client.post(URL, {"url": test_site.url("/good")})

    assert response.status_code == status.HTTP_201_CREATED
    assert response.json()["data"]["metrics"] is None
    assert "largest_contentful_paint" not in response.json()["data"]["results"]["performance"]
    assert Report.objects.get().rendering == {"document": "source"}


def test_another_users_report_and_its_metrics_stay_hidden(other_client, user):
    report = ReportFactory(owner=user, rendering=RENDERED)

    response = other_client.get(f"{URL}/{report.pk}")

    assert_reports_error(response, status.HTTP_404_NOT_FOUND)
    assert "metrics" not in response.content.decode()


def test_anonymous_requests_get_no_metrics():
    report = ReportFactory(rendering=RENDERED)

    response = APIClient().get(f"{URL}/{report.pk}")

    assert_reports_error(response, status.HTTP_401_UNAUTHORIZED)


def test_the_schema_documents_metrics(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()

    report = schema["components"]["schemas"]["Report"]["properties"]
    assert "metrics" in report
    assert "Lighthouse" in report["metrics"]["description"]
