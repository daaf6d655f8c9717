"""The report page in a real browser, for each privacy mode."""

import pytest
from django.conf import settings
from django.test import Client

from reports.models import Report
from tests.reports.factories import ReportFactory

pytestmark = [pytest.mark.django_db, pytest.mark.browser]


def sign_in(page, live_server, user) -> None:
    """Give the browser a session of `user`, as if they had signed in."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])


def test_public_report_shows_score_rating_and_checks(page, live_server):
    report = ReportFactory(score=62, url="https://shop.example/garden")

    page.goto(f"{live_server.url}/reports/{report.pk}")

    assert page.get_by_test_id("score").inner_text() == "62"
    assert page.get_by_test_id("rating").inner_text() == "Decent"
    assert page.get_by_role("heading", name="SEO", exact=False).first.is_visible()
    failed = page.locator('tr[data-check="image_keywords"]')
    assert "Failed" in failed.inner_text()
    assert "/images/photo.jpg" in failed.inner_text()
    assert not page.locator('tr[data-check="title"]').is_visible()  # passed checks start collapsed
    page.get_by_text("Passed checks").first.click()
    assert "Passed" in page.locator('tr[data-check="title"]').inner_text()


def test_report_page_styles_load_under_the_content_security_policy(page, live_server):
    report = ReportFactory(score=90)
    blocked = []
    page.on(
        "console", lambda message: blocked.append(message.text) if "Content Security Policy" in message.text else None
    )

    page.goto(f"{live_server.url}/reports/{report.pk}")

    stroke = page.locator(".gauge-value").first.evaluate("element => getComputedStyle(element).stroke")
    assert stroke == "rgb(26, 127, 55)"  # --good
    assert blocked == []


def test_private_report_is_not_found_for_a_visitor(page, live_server):
    report = ReportFactory(privacy=Report.Privacy.PRIVATE)

    response = page.goto(f"{live_server.url}/reports/{report.pk}")

    assert response.status == 404
    assert report.url not in page.content()


def test_private_report_is_shown_to_its_signed_in_owner(page, live_server, user):
    report = ReportFactory(owner=user, privacy=Report.Privacy.PRIVATE)
    sign_in(page, live_server, user)

    response = page.goto(f"{live_server.url}/reports/{report.pk}")

    assert response.status == 200
    assert page.get_by_role("link", name=report.url).is_visible()


def test_password_report_unlocks_with_the_right_password_after_a_wrong_one(page, live_server):
    report = ReportFactory(page_password="open sesame")
    page.goto(f"{live_server.url}/reports/{report.pk}")
    assert page.get_by_role("heading", name="This report is password-protected").is_visible()

    page.get_by_label("Password").fill("wrong guess")
    page.get_by_role("button", name="Unlock").click()
    assert page.get_by_role("alert").inner_text() == "The password is incorrect."

    page.get_by_label("Password").fill("open sesame")
    page.get_by_role("button", name="Unlock").click()
    assert page.get_by_role("link", name=report.url).is_visible()

    page.reload()
    assert page.get_by_role("link", name=report.url).is_visible()


def test_a_rendered_report_shows_its_lab_metrics_coloured_by_rating(page, live_server):
    metrics = {
        "fcp": {"value": 1200, "unit": "ms", "rating": "good", "score": 0.99},
        "lcp": {"value": 4600, "unit": "ms", "rating": "poor", "score": 0.4},
        "tbt": {"value": 350, "unit": "ms", "rating": "needs-improvement", "score": 0.74},
        "cls": {"value": 0.02, "unit": "", "rating": "good", "score": 1.0},
        "profile": {"rtt_ms": 150, "throughput_kbps": 1638.4, "cpu_slowdown": 4},
    }
    report = ReportFactory(score=70, rendering={"document": "rendered", "render_ms": 2100, "metrics": metrics})

    page.goto(f"{live_server.url}/reports/{report.pk}")

    section = page.get_by_role("region", name="Lab metrics")
    assert section.is_visible()
    lcp = section.locator('[data-metric="lcp"]')
    assert "Largest Contentful Paint" in lcp.inner_text()
    assert "4.6 s · Poor" in lcp.inner_text()
    colour = lcp.evaluate("element => getComputedStyle(element).borderLeftColor")
    assert colour == "rgb(207, 34, 46)"  # --bad
    # At a phone's width the section fits without scrolling sideways.
    page.set_viewport_size({"width": 390, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
