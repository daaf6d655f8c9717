"""The site audit page in a real browser, at desktop width and at 390 px."""

import pytest

from tests.reports.audits.factories import done_audit

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_the_audit_page_shows_issues_that_open_to_their_pages_and_fits_the_screen(screen, user):
    audit = done_audit(user, score=70, failing={"title": ("seo", "high")})

    screen.goto(f"/audits/{audit.pk}")

    issue = screen.page.get_by_test_id("issue-title")
    assert "fails on 1 page" in issue.inner_text()
    assert not issue.get_by_role("link").first.is_visible()
    issue.locator("summary").click()
    assert issue.get_by_role("link", name="https://shop.example/").is_visible()
    assert screen.page.get_by_test_id("pages").is_visible()
    assert screen.overflow() == 0
    assert screen.csp_violations == []
