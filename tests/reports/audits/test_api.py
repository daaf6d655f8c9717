"""/api/v1/audits: create, show, list, delete, compare and export, as owner, other user and anonymous."""

import csv
import io
import json

import pytest
from rest_framework import status
from rest_framework.test import APIClient

from reports.models import Audit, Project, Report
from tests.reports.asserts import Fields, assert_reports_error
from tests.reports.audits.factories import done_audit

pytestmark = pytest.mark.django_db

URL = "/api/v1/audits"
NEVER_RUN_BACKEND = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}


@pytest.fixture
def queued_only(settings):
    """Audits stay queued: no task runs."""
    settings.TASKS = NEVER_RUN_BACKEND


# --- Create -------------------------------------------------------------------


def test_create_answers_202_with_the_queued_audit_and_where_to_poll(owner_client, queued_only):
    response = owner_client.post(URL, {"url": "https://shop.example/", "max_pages": 20}, format="json")

    assert response.status_code == status.HTTP_202_ACCEPTED
    audit = Audit.objects.get()
    assert response["Location"] == f"http://testserver/api/v1/audits/{audit.pk}"
    body = response.json()
    assert body["status"] == 202
    data = body["data"]
    assert {key: data[key] for key in ("id", "project", "url", "status", "max_pages")} == {
        "id": audit.pk,
        "project": "shop.example",
        "url": "https://shop.example/",
        "status": "queued",
        "max_pages": 20,
    }
    assert (data["pages_found"], data["pages_done"], data["pages_failed"]) == (0, 0, 0)
    assert data["summary"] is None and data["budget"] is None
    assert (audit.owner.username, audit.project.name, audit.max_pages) == ("alice", "shop.example", 20)


def test_create_defaults_to_50_pages_and_takes_a_project_of_the_owner(owner_client, user, queued_only):
    Project.objects.create(owner=user, name="all-my-sites")
    response = owner_client.post(URL, {"url": "https://shop.example/", "project": "all-my-sites"}, format="json")

    assert response.status_code == status.HTTP_202_ACCEPTED
    assert response.json()["data"]["max_pages"] == 50
    assert Audit.objects.get().project.name == "all-my-sites"


def test_a_password_protected_audit_stores_the_password_hashed(owner_client, queued_only):
    response = owner_client.post(
        URL, {"url": "https://shop.example/", "privacy": 2, "password": "s3cret"}, format="json"
    )

    assert response.json()["data"]["password"] is True
    audit = Audit.objects.get()
    assert audit.password != "s3cret" and audit.check_page_password("s3cret")


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({}, ("url",)),
        ({"url": "ftp://shop.example/"}, ("url",)),
        ({"url": "https://user:pw@shop.example/"}, ("url",)),
        ({"url": "https://shop.example/", "max_pages": 0}, ("max_pages",)),
        ({"url": "https://shop.example/", "max_pages": 501}, ("max_pages",)),
        ({"url": "https://shop.example/", "max_pages": "many"}, ("max_pages",)),
        ({"url": "https://shop.example/", "max_pages": True}, ("max_pages",)),
        ({"url": "https://shop.example/", "privacy": 2}, ("password",)),
        ({"url": "https://shop.example/", "privacy": 7}, ("privacy",)),
        ({"url": "https://shop.example/", "project": "not-mine.example"}, ("project",)),
        ({"url": 42}, ("url",)),
    ],
)
def test_bad_input_answers_422_naming_the_field_and_stores_nothing(owner_client, queued_only, body, fields):
    response = owner_client.post(URL, body, format="json")

    assert_reports_error(response, 422, Fields(*fields))
    assert not Audit.objects.exists()


@pytest.mark.parametrize(
    ("url", "refused"),
    [
        ("http://10.1.2.3/", "a private address (10.1.2.3)"),
        ("http://localhost:8000/", "a loopback address (127.0.0.1)"),
        ("http://[fec0::1]/", "a site-local address (fec0::1)"),
        ("http://169.254.169.254/latest/meta-data/", "a link-local address (169.254.169.254)"),
    ],
)
def test_a_start_url_on_a_private_address_is_refused_at_once(owner_client, queued_only, settings, url, refused):
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = False

    response = owner_client.post(URL, {"url": url}, format="json")

    assert_reports_error(
        response, 422, {"url": [f"The url points to {refused}; only sites on public addresses can be audited."]}
    )
    assert not Audit.objects.exists()
    assert not Project.objects.exists()


def test_max_pages_is_capped_by_the_setting(owner_client, queued_only, settings):
    settings.REPORTS_AUDIT_MAX_PAGES = 10
    response = owner_client.post(URL, {"url": "https://shop.example/", "max_pages": 11}, format="json")

    assert_reports_error(response, 422, {"max_pages": ["The max pages may not be greater than 10."]})


def test_a_project_of_another_owner_is_not_taken(owner_client, other_user, queued_only):
    Project.objects.create(owner=other_user, name="bobs.example")
    response = owner_client.post(URL, {"url": "https://shop.example/", "project": "bobs.example"}, format="json")

    assert_reports_error(response, 422, {"project": ["The selected project is invalid."]})


def test_a_body_that_is_not_json_answers_400(owner_client):
    response = owner_client.post(URL, "{not json", content_type="application/json")

    assert response.status_code == 400
    assert response.json()["status"] == 400


def test_anonymous_requests_answer_401(queued_only, user):
    audit = done_audit(user)
    anonymous = APIClient()
    for response in (
        anonymous.post(URL, {"url": "https://shop.example/"}, format="json"),
        anonymous.get(URL),
        anonymous.get(f"{URL}/{audit.pk}"),
        anonymous.delete(f"{URL}/{audit.pk}"),
        anonymous.get(f"{URL}/{audit.pk}/compare?with={audit.pk}"),
        anonymous.get(f"{URL}/{audit.pk}/pages.csv"),
    ):
        assert_reports_error(response, 401)
    assert Audit.objects.filter(pk=audit.pk).exists()


# --- Show, list, delete -------------------------------------------------------


def test_the_owner_sees_a_done_audit_with_its_summary(owner_client, user):
    audit = done_audit(user, score=70, failing={"title": ("seo", "high")})

    response = owner_client.get(f"{URL}/{audit.pk}")

    assert response.status_code == 200
    data = response.json()["data"]
    assert data["status"] == "done"
    assert data["summary"]["score"] == 70
    assert data["summary"]["issues"][0]["check"] == "title"
    assert data["summary"]["issues"][0]["pages_count"] == 1
    assert data["budget"] is None


def test_another_user_gets_404_for_show_delete_compare_and_exports(other_client, user):
    audit = done_audit(user)

    for response in (
        other_client.get(f"{URL}/{audit.pk}"),
        other_client.delete(f"{URL}/{audit.pk}"),
        other_client.get(f"{URL}/{audit.pk}/compare?with={audit.pk}"),
        other_client.get(f"{URL}/{audit.pk}/pages.json"),
        other_client.get(f"{URL}/{audit.pk}/issues.csv"),
    ):
        assert_reports_error(response, 404)
    assert Audit.objects.filter(pk=audit.pk).exists()
    assert other_client.get(URL).json()["data"] == []


def test_the_list_pages_and_filters_the_owners_audits_newest_first(owner_client, user, other_user):
    first = done_audit(user, host="a.example")
    second = done_audit(user, host="b.example")
    done_audit(other_user, host="a.example")
    queued = Audit.objects.create(owner=user, project=first.project, url="https://a.example/x")

    body = owner_client.get(URL).json()
    assert [audit["id"] for audit in body["data"]] == [queued.pk, second.pk, first.pk]
    assert "summary" not in body["data"][0]
    assert body["meta"]["total"] == 3
    assert [a["id"] for a in owner_client.get(URL, {"project": "a.example"}).json()["data"]] == [queued.pk, first.pk]
    assert [a["id"] for a in owner_client.get(URL, {"status": "queued"}).json()["data"]] == [queued.pk]
    assert [a["id"] for a in owner_client.get(URL, {"sort": "asc", "per_page": 10}).json()["data"]] == [
        first.pk,
        second.pk,
        queued.pk,
    ]
    paged = owner_client.get(URL, {"per_page": 10, "page": 2, "status": "bogus"}).json()
    assert paged["data"] == [] and paged["meta"]["total"] == 3


def test_delete_removes_the_audit_and_its_pages_but_not_other_reports(owner_client, user):
    audit = done_audit(user)
    kept = Report.objects.create(owner=user, project=audit.project, url="https://shop.example/kept")

    response = owner_client.delete(f"{URL}/{audit.pk}")

    assert response.status_code == 200
    assert response.json() == {"id": audit.pk, "object": "audit", "deleted": True, "status": 200}
    assert not Audit.objects.exists()
    assert list(Report.objects.values_list("pk", flat=True)) == [kept.pk]
    assert Project.objects.get(pk=audit.project_id).report_count == 1
    assert_reports_error(owner_client.delete(f"{URL}/{audit.pk}"), 404)


# --- Budgets --------------------------------------------------------------------


def test_every_audit_answer_carries_the_projects_budget_verdict(owner_client, user):
    audit = done_audit(user, score=70, failing={"title": ("seo", "high")})
    Project.objects.filter(pk=audit.project_id).update(budget={"min_score": 80, "checks": ["title"]})

    shown = owner_client.get(f"{URL}/{audit.pk}").json()["data"]["budget"]
    listed = owner_client.get(URL).json()["data"][0]["budget"]

    assert shown == listed
    assert shown["passed"] is False
    assert [(f["rule"], f["name"], f["expected"], f["actual"]) for f in shown["failures"]] == [
        ("min_score", "score", 80, 70),
        ("check", "title", True, False),
    ]
    assert shown["failures"][1]["message"] == "The check title must pass; it fails on 1 page(s)."


def test_an_audit_that_meets_the_budget_passes(owner_client, user):
    audit = done_audit(user, score=90)
    Project.objects.filter(pk=audit.project_id).update(budget={"min_score": 80, "categories": {"seo": 85}})

    assert owner_client.get(f"{URL}/{audit.pk}").json()["data"]["budget"] == {"passed": True, "failures": []}


# --- Compare ------------------------------------------------------------------


def test_compare_gives_mean_score_deltas_and_each_checks_status(owner_client, user):
    before = done_audit(user, score=90, failing={"hsts": ("security", "low")})
    now = done_audit(user, score=70, failing={"title": ("seo", "high")})

    response = owner_client.get(f"{URL}/{now.pk}/compare", {"with": before.pk})

    assert response.status_code == 200
    data = response.json()["data"]
    assert data["score"] == {"report": 70, "with": 90, "delta": -20}
    assert data["categories"]["seo"] == {"report": 70, "with": 90, "delta": -20}
    changed = {check["check"]: check for check in data["checks"] if check["status"] != "unchanged"}
    assert changed["title"]["status"] == "regressed" and changed["title"]["pages"] == 1
    assert changed["hsts"]["status"] == "improved" and changed["hsts"]["pages_before"] == 1
    assert data["checks"][0]["check"] == "title"  # regressions first
    assert data["summary"]["regressed"] == 1 and data["summary"]["improved"] == 1


def test_compare_as_markdown_is_a_summary_for_a_pull_request(owner_client, user):
    before = done_audit(user, score=90)
    now = done_audit(user, score=70, failing={"title": ("seo", "high")})

    response = owner_client.get(f"{URL}/{now.pk}/compare", {"with": before.pk, "format": "markdown"})

    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    text = response.content.decode()
    assert f"Audit [#{now.pk}](http://testserver/audits/{now.pk}) compared with" in text
    assert "| **Score** | 90 | 70 | **-20** |" in text
    assert "**Regressed**" in text and "Title" in text


def test_compare_refuses_a_missing_bad_or_unfinished_baseline(owner_client, user, other_user):
    audit = done_audit(user)
    queued = Audit.objects.create(owner=user, project=audit.project, url=audit.url)
    others = done_audit(other_user)

    assert_reports_error(owner_client.get(f"{URL}/{audit.pk}/compare"), 422, {"with": ["The with field is required."]})
    assert_reports_error(
        owner_client.get(f"{URL}/{audit.pk}/compare?with=x"), 422, {"with": ["The with must be an audit id."]}
    )
    assert_reports_error(
        owner_client.get(f"{URL}/{audit.pk}/compare?with={queued.pk}"),
        422,
        {"with": [f"Audit {queued.pk} is not done yet."]},
    )
    assert_reports_error(owner_client.get(f"{URL}/{audit.pk}/compare?with={others.pk}"), 404)


# --- Exports ------------------------------------------------------------------


def test_pages_export_as_csv_lists_every_page_streamed(owner_client, user):
    audit = done_audit(user, score=70)

    response = owner_client.get(f"{URL}/{audit.pk}/pages.csv")

    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="audit-{audit.pk}-pages.csv"'
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [(row["url"], row["status"], row["score"], row["score_seo"]) for row in rows] == [
        ("https://shop.example/", "done", "70", "70"),
        ("https://shop.example/about", "done", "70", "70"),
    ]


def test_the_pages_csv_neutralises_cells_a_spreadsheet_would_run_as_formulas(owner_client, user):
    audit = done_audit(user)
    audit.pages.filter(url="https://shop.example/about").update(
        status=Report.Status.FAILED, error='=HYPERLINK("https://evil.example/","Open")'
    )

    pages = owner_client.get(f"{URL}/{audit.pk}/pages.csv")

    rows = list(csv.DictReader(io.StringIO(b"".join(pages.streaming_content).decode())))
    # A single quote first (OWASP): spreadsheets show the text, and follow no link.
    assert [(row["url"], row["error"]) for row in rows] == [
        ("https://shop.example/", ""),
        ("https://shop.example/about", '\'=HYPERLINK("https://evil.example/","Open")'),
    ]


def test_issues_export_as_json_groups_failing_checks_worst_first(owner_client, user):
    audit = done_audit(user, failing={"hsts": ("security", "low"), "title": ("seo", "high")})

    response = owner_client.get(f"{URL}/{audit.pk}/issues.json")

    assert response.status_code == 200 and response.streaming
    body = json.loads(b"".join(response.streaming_content))
    assert body["audit"] == audit.pk
    assert [(row["check"], row["importance"], row["pages_count"], row["url"]) for row in body["issues"]] == [
        ("title", "high", 1, "https://shop.example/"),
        ("hsts", "low", 1, "https://shop.example/"),
    ]


def test_an_unknown_export_format_is_404(owner_client, user):
    audit = done_audit(user)

    assert_reports_error(owner_client.get(f"{URL}/{audit.pk}/pages.xml"), 404)
