"""The report page's details in a real browser: units, labels, advice, the JSON download and printing."""

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from reports.models import Report
from tests.reports.factories import ReportFactory

pytestmark = [pytest.mark.django_db, pytest.mark.browser]

RESULTS = {
    "seo": {
        "title": {"passed": True, "importance": "high", "value": "Acme Garden Tools", "errors": {}},
        "brand_new_check": {"passed": False, "importance": "medium", "value": 3, "errors": {"odd": None}},
    },
    "performance": {
        "load_time": {
            "passed": False,
            "importance": "medium",
            "value": 5234,
            "errors": {"too_slow": {"max": 2000, "current": 5234}},
        },
        "page_size": {"passed": True, "importance": "medium", "value": 48_123, "errors": {}},
        "dom_size": {"passed": True, "importance": "low", "value": 14, "errors": {}},
        "http_requests": {
            "passed": False,
            "importance": "medium",
            "value": {"scripts": ["/app.js"], "bytes": 120_500},
            "errors": {"too_many": {"max": 50, "current": 61}},
        },
    },
    "security": {"hsts": {"passed": False, "importance": "low", "value": None, "errors": {"missing": None}}},
}


def row(page, key: str):
    return page.locator(f'tr[data-check="{key}"]')


def test_evidence_has_units_labels_are_real_and_failed_checks_say_how_to_fix(screen):
    report = ReportFactory(results=RESULTS)

    screen.goto(f"/reports/{report.pk}")
    page = screen.page

    expect(row(page, "load_time")).to_contain_text("5,234 ms")
    expect(row(page, "load_time")).to_contain_text("Too slow: 5,234 ms (should be at most 2,000 ms)")
    expect(row(page, "page_size")).to_contain_text("48 kB")
    expect(row(page, "dom_size")).to_contain_text("14 nodes")
    expect(row(page, "http_requests")).to_contain_text("61 requests (should be at most 50 requests)")
    expect(row(page, "http_requests")).to_contain_text("Total size: 120 kB")
    expect(row(page, "hsts").get_by_role("rowheader")).to_have_text("HSTS")
    expect(row(page, "hsts")).to_contain_text("Why it matters:")
    expect(row(page, "hsts")).to_contain_text('How to fix: Send "Strict-Transport-Security')
    expect(row(page, "load_time").locator(".advice")).to_be_visible()
    assert row(page, "title").locator(".advice").count() == 0  # passed: nothing to fix
    expect(row(page, "brand_new_check")).to_contain_text("Failed")  # a check without advice still shows
    assert row(page, "brand_new_check").locator(".advice").count() == 0
    assert screen.overflow() <= 0
    assert screen.csp_violations == []


def test_report_downloads_as_json(screen):
    report = ReportFactory(results=RESULTS, url="https://shop.example/garden")
    screen.goto(f"/reports/{report.pk}")

    with screen.page.expect_download() as download_info:
        screen.page.get_by_role("link", name="Download JSON").click()

    download = download_info.value
    assert download.suggested_filename == f"report-{report.pk}-{report.project.name}.json"
    body = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    assert (body["id"], body["url"], body["results"]) == (report.pk, "https://shop.example/garden", RESULTS)


def test_print_button_opens_the_print_dialog(screen):
    report = ReportFactory(results=RESULTS)
    screen.goto(f"/reports/{report.pk}")
    page = screen.page
    page.evaluate("window.print = () => { window.printed = true; }")

    page.get_by_role("button", name="Print or save as PDF").click()

    assert page.evaluate("window.printed") is True


def test_printed_report_shows_the_report_alone(screen):
    report = ReportFactory(results=RESULTS)
    screen.goto(f"/reports/{report.pk}")
    page = screen.page

    page.emulate_media(media="print")

    expect(page.locator(".site-header")).to_be_hidden()
    expect(page.locator(".site-footer")).to_be_hidden()
    expect(page.locator(".report-actions")).to_be_hidden()
    expect(page.get_by_test_id("score")).to_be_visible()
    expect(row(page, "load_time").locator(".advice")).to_be_visible()
    assert page.locator("body").evaluate("body => getComputedStyle(body).backgroundColor") == "rgb(255, 255, 255)"
    # Each check row stays on one page.
    assert row(page, "load_time").evaluate("tr => getComputedStyle(tr).breakInside") == "avoid"
    pdf = page.pdf(format="A4")
    assert pdf.startswith(b"%PDF")
    assert screen.csp_violations == []


def test_owner_sees_a_rerun_in_progress_and_can_follow_it(screen, user, queued_only):
    report = ReportFactory(owner=user, results=RESULTS)
    screen.sign_in(user)
    screen.goto(f"/reports/{report.pk}")
    page = screen.page

    page.get_by_role("button", name="Analyse again").click()

    page.wait_for_url(f"**/reports/{report.pk}/progress")
    expect(page.get_by_test_id("status")).to_have_text("Queued: waiting for a worker to start the analysis.")
    assert Report.objects.get().status == Report.Status.QUEUED
    screen.goto(f"/reports/{report.pk}")
    expect(page.get_by_test_id("status")).to_contain_text("Analysis queued")
    expect(page.get_by_test_id("score")).to_be_visible()  # the previous results stay on show
    page.get_by_role("link", name="Follow the analysis").click()
    page.wait_for_url(f"**/reports/{report.pk}/progress")
