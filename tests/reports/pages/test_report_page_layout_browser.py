"""The report page as issue 21 lays it out, in a real browser at 1280 and 390 px: a gauge per category,
failed checks first and passed ones collapsed, and the filter by category and importance."""

import pytest
from playwright.sync_api import expect

from tests.reports.factories import ReportFactory

pytestmark = [pytest.mark.django_db, pytest.mark.browser]

RESULTS = {
    "seo": {
        "title": {"passed": True, "importance": "high", "value": "Acme", "errors": {}},
        "meta_description": {"passed": False, "importance": "medium", "value": None, "errors": {}},
    },
    "performance": {
        "load_time": {
            "passed": False,
            "importance": "medium",
            "value": 5234,
            "errors": {"too_slow": {"max": 2000, "current": 5234}},
        },
        "dom_size": {"passed": True, "importance": "low", "value": 14, "errors": {}},
    },
    "security": {"hsts": {"passed": False, "importance": "low", "value": None, "errors": {"missing": None}}},
    "accessibility": {"form_labels": {"passed": True, "importance": "medium", "value": 0, "errors": {}}},
}


def row(page, key: str):
    return page.locator(f'tr[data-check="{key}"]')


def test_each_category_has_a_gauge_and_its_failed_checks_show_before_the_collapsed_passed_ones(screen):
    report = ReportFactory(results=RESULTS, score=89)

    screen.goto(f"/reports/{report.pk}")
    page = screen.page

    gauges = page.get_by_role("list", name="Score per category").get_by_role("listitem")
    expect(gauges).to_have_count(4)
    expect(gauges.nth(0)).to_contain_text("50")
    expect(gauges.nth(0)).to_contain_text("SEO")
    expect(page.get_by_test_id("category-score-security")).to_contain_text("99")
    expect(row(page, "meta_description")).to_be_visible()
    expect(row(page, "load_time")).to_be_visible()
    expect(row(page, "title")).to_be_hidden()  # passed: collapsed
    page.locator('[data-category="seo"] summary').click()
    expect(row(page, "title")).to_be_visible()
    expect(page.locator('[data-category="accessibility"] [data-nothing-failed]')).to_have_text("No failed check.")
    assert screen.overflow() == 0
    assert screen.csp_violations == []


def test_the_filter_shows_the_checks_asked_for_without_a_reload(screen):
    report = ReportFactory(results=RESULTS, score=89)
    screen.goto(f"/reports/{report.pk}")
    page = screen.page
    page.evaluate("window.notReloaded = true")
    expect(page.get_by_role("button", name="Filter")).to_be_hidden()

    page.get_by_label("Importance", exact=True).select_option("medium")

    expect(row(page, "meta_description")).to_be_visible()
    expect(row(page, "load_time")).to_be_visible()
    expect(row(page, "hsts")).to_be_hidden()
    expect(page.get_by_test_id("check-count")).to_have_text("2 failed, 1 passed")

    page.get_by_label("Category", exact=True).select_option("performance")

    expect(page.locator('[data-category="seo"]')).to_be_hidden()
    expect(row(page, "load_time")).to_be_visible()
    expect(page.get_by_test_id("check-count")).to_have_text("1 failed, 0 passed")
    assert page.evaluate("window.notReloaded") is True
    assert page.url.endswith("?category=performance&importance=medium")
    assert screen.csp_violations == []


def test_the_filter_works_without_javascript(browser, live_server):
    report = ReportFactory(results=RESULTS, score=89)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/reports/{report.pk}")
        page.get_by_label("Category", exact=True).select_option("security")
        page.get_by_role("button", name="Filter").click()

        page.wait_for_url("**/reports/*?category=security&importance=")
        expect(row(page, "hsts")).to_be_visible()
        expect(row(page, "load_time")).to_have_count(0)
    finally:
        context.close()
