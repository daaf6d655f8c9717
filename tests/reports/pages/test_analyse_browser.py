"""Asking for a report in a real browser: the form, the live progress and the landing on the report."""

import threading

import pytest
from django.db import connections
from playwright.sync_api import expect

from reports import tasks
from reports.models import Report
from tests.reports.factories import ReportFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def run_worker(report: Report) -> threading.Thread:
    """Run the report's queued analysis as a task worker would, beside the browser."""

    def analyse() -> None:
        try:
            tasks.analyze_report.call(report.pk, report.analysis_run)
        finally:
            # As the worker's threads do: else the connection outlives the thread, and the test
            # database is still held when the session drops it (tests/database_holders.py).
            connections.close_all()

    worker = threading.Thread(target=analyse)
    worker.start()
    return worker


def test_analysing_a_url_shows_each_state_and_lands_on_the_report(screen, user, test_site, queued_only):
    screen.sign_in(user)
    page = screen.page
    screen.goto("/reports/")
    page.get_by_role("link", name="Analyse a page").click()

    page.get_by_label("URL").fill(test_site.url("/slow?delay=2"))
    page.get_by_label("Only me").check()
    page.get_by_role("button", name="Analyse").click()

    report = Report.objects.get()
    page.wait_for_url(f"**/reports/{report.pk}/progress")
    status = page.get_by_test_id("status")
    expect(status).to_have_text("Queued: waiting for a worker to start the analysis.")
    worker = run_worker(report)
    expect(status).to_have_text("Running: fetching the page and checking it.")
    expect(page.locator('[data-step="queued"]')).to_have_class("is-done")
    assert screen.overflow() <= 0
    page.wait_for_url(f"**/reports/{report.pk}", timeout=20_000)
    worker.join()
    expect(page.get_by_test_id("score")).to_have_text(str(Report.objects.get().score))
    assert Report.objects.get().privacy == Report.Privacy.PRIVATE
    assert screen.csp_violations == []


def test_a_failed_analysis_shows_its_cause_without_a_reload(screen, user, test_site, queued_only):
    screen.sign_in(user)
    page = screen.page
    screen.goto("/reports/new")
    page.get_by_label("URL").fill(test_site.url("/no-such-page"))
    page.get_by_role("button", name="Analyse").click()
    report = Report.objects.get()
    page.wait_for_url(f"**/reports/{report.pk}/progress")
    page.evaluate("window.notReloaded = true")

    run_worker(report).join()

    expect(page.get_by_role("heading", level=1)).to_have_text("Analysis failed")
    expect(page.get_by_test_id("status")).to_be_hidden()
    expect(page.get_by_test_id("failure")).to_contain_text("HTTP status 404")
    assert page.title().startswith("Analysis failed")
    assert page.evaluate("window.notReloaded") is True
    assert page.get_by_role("button", name="Analyse again").is_visible()
    assert screen.csp_violations == []


def test_bad_input_is_shown_on_the_form(screen, user):
    screen.sign_in(user)
    page = screen.page
    screen.goto("/reports/new")

    page.get_by_label("URL").fill("ftp://files.example/")
    page.get_by_role("button", name="Analyse").click()

    expect(page.get_by_role("alert")).to_have_text("Enter a web address starting with http:// or https://.")
    assert Report.objects.count() == 0
    assert screen.overflow() <= 0
    assert screen.csp_violations == []


def test_a_failure_written_by_the_script_is_in_the_readers_language(screen, user):
    report = ReportFactory(owner=user, status=Report.Status.RUNNING, score=None, result="", generated_at=None)
    screen.sign_in(user)
    page = screen.page
    page.context.add_cookies([{"name": "django_language", "value": "de", "url": screen.live_server.url}])
    screen.goto(f"/reports/{report.pk}/progress")
    expect(page.get_by_test_id("status")).to_have_text("Läuft: Die Seite wird abgerufen und geprüft.")

    Report.objects.filter(pk=report.pk).update(status=Report.Status.FAILED, error="DNS")

    expect(page.get_by_role("heading", level=1)).to_have_text("Analyse fehlgeschlagen")
    expect(page.get_by_test_id("failure")).to_have_text("DNS")
    assert page.title() == f"Analyse fehlgeschlagen: {report.url} — Webtools"
    assert page.get_by_role("button", name="Erneut analysieren").is_visible()
    assert screen.csp_violations == []
