"""Reporting a link and moderating it, in Chromium at 1280 and 390 px (issue 46, item 5)."""

import pytest

from shortener.models import LinkReport, ShortLink
from tests.browser import DESKTOP, PHONE, collect_csp_errors, overflow, sign_in
from tests.shortener.factories import ShortLinkFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP_CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36"


@pytest.fixture(params=[DESKTOP, PHONE], ids=["1280px", "390px"])
def context(browser, request):
    context = browser.new_context(viewport=request.param, user_agent=DESKTOP_CHROME)
    yield context
    context.close()


def test_a_visitor_reports_a_link_from_its_statistics_and_an_admin_disables_it(
    browser, context, live_server, user, settings
):
    ShortLinkFactory(code="phish", url="https://phish.example/login", owner=user)
    base = f"{live_server.url}/s"
    page = context.new_page()
    page.set_default_timeout(10_000)
    csp_errors = collect_csp_errors(page)

    # An anonymous visitor: from the link's statistics page to the report form.
    page.goto(f"{base}/stats/phish", wait_until="load")
    page.get_by_role("link", name="Report this link").click()
    page.get_by_label("Reason").fill("It imitates my bank's sign-in page.")
    page.get_by_role("button", name="Send the report").click()

    assert page.get_by_role("status").inner_text().startswith("Thank you.")
    assert overflow(page) == 0
    assert list(LinkReport.objects.values_list("link__code", "reason")) == [
        ("phish", "It imitates my bank's sign-in page.")
    ]

    # An admin (alice in admin mode) sees it in the queue and disables the link.
    settings.SHORTENER_ADMINPWD = "moderator"
    admin = browser.new_context(viewport=context.pages[0].viewport_size, user_agent=DESKTOP_CHROME)
    sign_in(admin, live_server, user)
    entered = admin.request.post(f"{base}/stats", form={"adminpwd": "moderator", "_format": "json"})
    assert entered.json()["success"] is True
    queue = admin.new_page()
    queue.goto(f"{base}/moderation", wait_until="load")
    row = queue.locator("tbody tr").filter(has_text="phish")
    assert "It imitates my bank" in row.inner_text()
    assert overflow(queue) == 0
    row.get_by_role("button", name="Disable").click()
    queue.wait_for_url(f"{base}/moderation")
    assert "is now disabled" in queue.locator(".messages").inner_text()
    admin.close()

    assert ShortLink.objects.get(code="phish").is_disabled
    response = page.goto(f"{base}/phish", wait_until="load")
    assert response.status == 410
    assert page.get_by_role("heading", level=1).inner_text() == "This link has been disabled"
    assert overflow(page) == 0
    assert csp_errors == []
