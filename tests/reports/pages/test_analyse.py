"""Asking for a report from the browser: the form, the progress page, its JSON status and re-runs."""

import pytest
from django.test import Client
from pytest_django.asserts import assertContains, assertNotContains, assertRedirects

from reports.models import Report
from tests.reports.asserts import assert_error_page, assert_method_not_allowed, assert_reports_error
from tests.reports.factories import ReportFactory

pytestmark = pytest.mark.django_db

NEW = "/reports/new"


def test_form_asks_an_anonymous_visitor_to_sign_in_first(client):
    get = client.get(NEW)
    post = client.post(NEW, {"url": "https://example.com/"})

    assertRedirects(get, f"/accounts/login/?next={NEW}", fetch_redirect_response=False)
    assert post.status_code == 302 and post["Location"].startswith("/accounts/login/")
    assert Report.objects.count() == 0


def test_form_refuses_a_post_without_the_csrf_token(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)

    response = client.post(NEW, {"url": "https://example.com/", "privacy": "0"})

    assertContains(response, "CSRF verification failed", status_code=403)
    assert Report.objects.count() == 0


def test_form_carries_a_csrf_token(client, user):
    client.force_login(user)

    response = client.get(f"{NEW}?url=https://shop.example/")

    assertContains(response, 'name="csrfmiddlewaretoken"')
    assertContains(response, 'value="https://shop.example/"')


def test_posting_a_url_queues_its_analysis_and_shows_its_progress(client, user, queued_only):
    client.force_login(user)

    response = client.post(NEW, {"url": "https://shop.example/garden", "privacy": "1"})

    report = Report.objects.get()
    assertRedirects(response, f"/reports/{report.pk}/progress", fetch_redirect_response=False)
    assert (report.owner, report.url, report.project.name) == (user, "https://shop.example/garden", "shop.example")
    assert (report.status, report.privacy) == (Report.Status.QUEUED, Report.Privacy.PRIVATE)
    assert queued_only == [(report.pk, report.analysis_run)]
    progress = client.get(response["Location"])
    assertContains(progress, "Queued: waiting for a worker")
    assertContains(progress, '<li data-step="queued" class="is-current">Queued</li>', html=True)


def test_a_finished_analysis_lands_on_the_report_page(client, user, test_site):
    client.force_login(user)

    response = client.post(NEW, {"url": test_site.url("/good"), "privacy": "0"}, follow=True)

    report = Report.objects.get()
    assert report.status == Report.Status.DONE
    assert response.redirect_chain[-1] == (f"/reports/{report.pk}", 302)
    assertContains(response, '<span class="gauge-score" data-testid="score">', status_code=200)


def test_a_password_protected_report_keeps_only_the_hash(client, user, queued_only):
    client.force_login(user)

    client.post(NEW, {"url": "https://shop.example/", "privacy": "2", "password": "open sesame"})

    report = Report.objects.get()
    assert report.privacy == Report.Privacy.PASSWORD
    assert report.check_page_password("open sesame") and report.password != "open sesame"


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({}, "url", "This field is required."),
        ({"privacy": "0"}, "url", "This field is required."),
        ({"url": "", "privacy": "0"}, "url", "This field is required."),
        ({"url": "not a url", "privacy": "0"}, "url", "starting with http:// or https://"),
        ({"url": "ftp://files.example/", "privacy": "0"}, "url", "starting with http:// or https://"),
        ({"url": "javascript:alert(1)", "privacy": "0"}, "url", "starting with http:// or https://"),
        ({"url": "https://me:secret@shop.example/", "privacy": "0"}, "url", "must not contain a user name"),
        ({"url": "https://shop.example/" + "a" * 2048, "privacy": "0"}, "url", "at most 2048 characters"),
        ({"url": "http://[fec0::1]/", "privacy": "0"}, "url", "private or reserved address (fec0::1)"),
        ({"url": "https://shop.example/", "privacy": "7"}, "privacy", "Select a valid choice."),
        ({"url": "https://shop.example/", "privacy": "public"}, "privacy", "Select a valid choice."),
        ({"url": "https://shop.example/"}, "privacy", "This field is required."),
        ({"url": "https://shop.example/", "privacy": "2"}, "password", "Enter a password: the report is"),
        ({"url": "https://shop.example/", "privacy": "2", "password": "x" * 129}, "password", "at most 128"),
    ],
)
def test_bad_input_is_answered_on_the_form_and_nothing_is_stored(client, user, queued_only, data, field, message):
    client.force_login(user)

    response = client.post(NEW, data)

    assert response.status_code == 422
    assert any(message in error for error in response.context["form"].errors[field])
    assertContains(response, 'role="alert"', status_code=422)
    assert Report.objects.count() == 0
    assert queued_only == []


def test_a_failed_analysis_shows_its_cause_and_offers_another_try(client, user, test_site):
    client.force_login(user)

    response = client.post(NEW, {"url": test_site.url("/no-such-page"), "privacy": "0"}, follow=True)

    report = Report.objects.get()
    assert report.status == Report.Status.FAILED
    assert response.redirect_chain[-1] == (f"/reports/{report.pk}/progress", 302)
    assertContains(response, '<h1 data-heading data-testid="heading">Analysis failed</h1>', html=True)
    assertNotContains(response, "<h1>Analysing")
    assertContains(response, "HTTP status 404", count=1)
    assert response.content.decode().count("could not be analysed") == 1
    assertContains(response, "Analyse again")


def test_status_answers_the_owner_in_json(client, user, queued_only):
    report = ReportFactory(owner=user, status=Report.Status.RUNNING, score=None, result="", generated_at=None)
    client.force_login(user)

    response = client.get(f"/reports/{report.pk}/status")

    assert response.status_code == 200
    assert response.json() == {
        "id": report.pk,
        "status": "running",
        "text": "Running: fetching the page and checking it.",
        "error": None,
        "report_url": f"/reports/{report.pk}",
    }
    assert "no-cache" in response["Cache-Control"]


def test_status_of_a_failed_analysis_says_why(client, user):
    report = ReportFactory(owner=user, status=Report.Status.FAILED, error="The page could not be analysed: DNS.")
    client.force_login(user)

    body = client.get(f"/reports/{report.pk}/status").json()

    assert (body["status"], body["error"]) == ("failed", "The page could not be analysed: DNS.")


def test_status_is_not_found_for_another_user_and_unknown_ids(client, other_user):
    report = ReportFactory()
    client.force_login(other_user)

    other = client.get(f"/reports/{report.pk}/status")
    unknown = client.get("/reports/999999/status")

    assert_reports_error(other, 404)
    assert_reports_error(unknown, 404)
    assert report.url not in other.content.decode()


def test_status_asks_an_anonymous_visitor_to_sign_in(client):
    report = ReportFactory()

    response = client.get(f"/reports/{report.pk}/status")

    assert_reports_error(response, 401, "Sign in first.")


def test_status_accepts_no_writes(client, user):
    report = ReportFactory(owner=user)
    client.force_login(user)

    assert_method_not_allowed(client.post(f"/reports/{report.pk}/status"), "GET, HEAD")


def test_progress_page_is_the_owners_alone(client, user, other_user):
    report = ReportFactory(owner=user, status=Report.Status.QUEUED)

    anonymous = client.get(f"/reports/{report.pk}/progress")
    client.force_login(other_user)
    other = client.get(f"/reports/{report.pk}/progress")

    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
    assert_error_page(other, 404, "Not found.")
    assert report.url not in other.content.decode()


def test_progress_of_a_done_report_goes_to_the_report(client, user):
    report = ReportFactory(owner=user)
    client.force_login(user)

    response = client.get(f"/reports/{report.pk}/progress")

    assertRedirects(response, f"/reports/{report.pk}", fetch_redirect_response=False)


def test_report_page_of_an_unfinished_report_sends_its_owner_to_the_progress(client, user):
    report = ReportFactory(owner=user, status=Report.Status.QUEUED, score=None, result="", generated_at=None)
    client.force_login(user)

    response = client.get(f"/reports/{report.pk}")

    assertRedirects(response, f"/reports/{report.pk}/progress", fetch_redirect_response=False)


def test_owner_can_run_the_analysis_again(client, user, queued_only):
    report = ReportFactory(owner=user, status=Report.Status.FAILED, error="Timed out.")
    client.force_login(user)

    response = client.post(f"/reports/{report.pk}/rerun")

    assertRedirects(response, f"/reports/{report.pk}/progress", fetch_redirect_response=False)
    report.refresh_from_db()
    assert (report.status, report.error, report.analysis_run) == (Report.Status.QUEUED, "", 2)
    assert queued_only == [(report.pk, 2)]


def test_another_user_cannot_run_someone_elses_analysis_again(client, other_user, queued_only):
    report = ReportFactory()
    client.force_login(other_user)

    response = client.post(f"/reports/{report.pk}/rerun")

    assert_error_page(response, 404, "Not found.")
    report.refresh_from_db()
    assert (report.status, report.analysis_run) == (Report.Status.DONE, 1)
    assert queued_only == []


def test_rerun_needs_a_post(client, user):
    report = ReportFactory(owner=user)
    client.force_login(user)

    response = client.get(f"/reports/{report.pk}/rerun")

    assert_method_not_allowed(response, "POST")
    report.refresh_from_db()
    assert (report.status, report.analysis_run) == (Report.Status.DONE, 1)


def test_anonymous_visitor_cannot_run_an_analysis_again(client, queued_only):
    report = ReportFactory()

    response = client.post(f"/reports/{report.pk}/rerun")

    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    report.refresh_from_db()
    assert (report.status, report.analysis_run) == (Report.Status.DONE, 1)
    assert queued_only == []


def test_status_is_always_json_whatever_the_client_accepts(client, user):
    report = ReportFactory(owner=user)
    client.force_login(user)

    response = client.get(f"/reports/{report.pk}/status", headers={"Accept": "text/html"})

    assert response["Content-Type"] == "application/json"
    assert response.json()["status"] == "done"
