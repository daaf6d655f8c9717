"""The report as a JSON file, /reports/<id>.json: the page's privacy rules, the API's record."""

import json

import pytest
from pytest_django.asserts import assertRedirects

from reports.models import Report
from tests.reports.asserts import assert_error_page, assert_method_not_allowed
from tests.reports.factories import SAMPLE_RESULTS, ReportFactory

pytestmark = pytest.mark.django_db


def download_url(report: Report) -> str:
    return f"/reports/{report.pk}.json"


def test_public_report_downloads_as_a_json_attachment_with_the_api_record(client):
    report = ReportFactory(url="https://shop.example/garden", score=62)

    response = client.get(download_url(report))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == f'attachment; filename="report-{report.pk}-{report.project.name}.json"'
    body = json.loads(response.getvalue())
    assert body["id"] == report.pk
    assert body["url"] == "https://shop.example/garden"
    assert (body["score"], body["result"], body["results"]) == (62, "decent", SAMPLE_RESULTS)
    assert body["password"] is False


def test_download_never_contains_the_password_hash(client, user):
    report = ReportFactory(owner=user, page_password="open sesame")
    client.force_login(user)

    response = client.get(download_url(report))

    assert response.status_code == 200
    assert json.loads(response.getvalue())["password"] is True
    assert report.password.encode() not in response.getvalue()


def test_private_report_downloads_for_its_owner_only(client, user, other_user):
    report = ReportFactory(owner=user, privacy=Report.Privacy.PRIVATE)

    anonymous = client.get(download_url(report))
    client.force_login(other_user)
    other = client.get(download_url(report))
    client.force_login(user)
    owner = client.get(download_url(report))

    assert (anonymous.status_code, other.status_code, owner.status_code) == (404, 404, 200)
    assert report.url.encode() not in anonymous.content + other.content
    assert "no-store" in owner["Cache-Control"]


def test_password_report_download_sends_a_visitor_to_the_password_form_first(client):
    report = ReportFactory(page_password="open sesame")

    locked = client.get(download_url(report))
    client.post(f"/reports/{report.pk}", {"password": "open sesame"})
    unlocked = client.get(download_url(report))

    assertRedirects(locked, f"/reports/{report.pk}", fetch_redirect_response=False)
    assert unlocked.status_code == 200
    assert json.loads(unlocked.getvalue())["id"] == report.pk


def test_unknown_report_download_is_not_found(client):
    assert_error_page(client.get("/reports/999999.json"), 404, "Not found.")


def test_download_accepts_no_writes(client):
    report = ReportFactory()

    assert_method_not_allowed(client.post(download_url(report)), "GET, HEAD")
