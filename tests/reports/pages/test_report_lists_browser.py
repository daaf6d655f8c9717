"""The report and project lists in a real browser, at desktop width and at 390 px."""

from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from tests.reports.factories import ProjectFactory, ReportFactory

pytestmark = [pytest.mark.django_db, pytest.mark.browser]


def test_signing_in_from_the_report_list_comes_back_to_it(screen, user):
    ReportFactory(owner=user, url="https://garden.example/rakes")
    page = screen.page

    screen.goto("/reports/")
    page.get_by_label("Login").fill("alice")
    page.get_by_label("Password").fill("alice-password")
    page.get_by_role("button", name="Sign In", exact=True).click()  # not "Sign in with a passkey"

    page.wait_for_url("**/reports/")
    assert page.get_by_role("heading", name="Your reports").is_visible()
    assert page.get_by_role("link", name="https://garden.example/rakes").is_visible()
    assert screen.overflow() <= 0
    assert screen.csp_violations == []


def test_filtering_the_report_list_by_rating_and_project(screen, user):
    garden = ProjectFactory(owner=user, name="garden.example")
    ReportFactory(owner=user, project=garden, url="https://garden.example/good", score=90)
    ReportFactory(owner=user, project=garden, url="https://garden.example/bad", score=10)
    ReportFactory(owner=user, url="https://other.example/bad", score=20)
    screen.sign_in(user)
    page = screen.page
    screen.goto("/reports/")
    assert page.get_by_test_id("result-count").inner_text() == "3 reports"

    page.get_by_label("Project").fill("garden.example")
    page.get_by_label("Rating").select_option("bad")
    page.get_by_role("button", name="Filter").click()

    page.wait_for_url("**/reports/?*result=bad*")
    assert page.get_by_test_id("result-count").inner_text() == "1 report"
    assert page.get_by_role("link", name="https://garden.example/bad").is_visible()
    assert page.get_by_label("Rating").input_value() == "bad"
    assert screen.overflow() <= 0
    assert screen.csp_violations == []


def test_a_long_url_in_the_report_list_wraps_inside_the_viewport(screen, user):
    ReportFactory(owner=user, url="https://long.example/" + "segment-" * 60)
    screen.sign_in(user)

    screen.goto("/reports/")

    assert screen.overflow() <= 0


def test_report_list_pages_forward(screen, user):
    ReportFactory.create_batch(11, owner=user)
    screen.sign_in(user)
    page = screen.page
    screen.goto("/reports/")

    page.get_by_role("link", name="Next →").click()

    # The link resumes after the first page's last report (a cursor: docs/scale.md).
    page.wait_for_url("**/reports/?page=2&after=*")
    assert page.locator("tr[data-report]").count() == 1


def test_project_list_draws_each_projects_score_over_time(screen, user):
    project = ProjectFactory(owner=user, name="shop.example")
    start = datetime(2026, 10, 1, tzinfo=UTC)
    for day, score in enumerate([35, 60, 82, 91]):
        ReportFactory(
            owner=user,
            project=project,
            url="https://shop.example/",
            score=score,
            generated_at=start + timedelta(days=day),
        )
    ReportFactory(owner=user, project=project, url="https://shop.example/about", score=50, generated_at=start)
    screen.sign_in(user)
    page = screen.page

    screen.goto("/reports/projects")

    chart = page.locator('[data-project="shop.example"] [data-testid="score-chart"]')
    assert chart.is_visible()
    assert chart.locator("circle.score-point").count() == 5
    assert chart.locator("polyline").count() == 1  # one line per URL
    legend = page.locator('[data-project="shop.example"]').get_by_role("list", name="Legend")
    expect(legend).to_contain_text("https://shop.example/: 35 → 91")
    expect(legend).to_contain_text("Good from 80")
    expect(legend).to_contain_text("Decent from 50")
    box = chart.bounding_box()
    assert 0 < box["width"] <= screen.width and box["height"] > 50
    # The chart is styled by the external stylesheet, not left to SVG defaults (CSP forbids inline style).
    assert chart.locator("polyline").evaluate("line => getComputedStyle(line).strokeWidth") != "1px"
    assert screen.overflow() <= 0
    assert screen.csp_violations == []

    page.get_by_role("link", name="shop.example").click()
    page.wait_for_url("**/reports/?project=shop.example")
    assert page.get_by_test_id("result-count").inner_text() == "5 reports"


def test_report_list_labels_each_value_at_390px(screen, user):
    ReportFactory(owner=user, score=62)
    screen.sign_in(user)
    screen.goto("/reports/")
    page = screen.page

    score = page.locator("tr[data-report] td[data-label=Score]")
    label = score.evaluate("cell => getComputedStyle(cell, '::before').content")
    if screen.width <= 640:
        assert label == '"Score: "'
        assert page.locator("thead").first.is_hidden()
    else:
        assert label == "none"
    assert screen.overflow() <= 0
