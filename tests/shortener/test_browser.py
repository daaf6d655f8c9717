"""The pages in a real browser: log in, shorten, follow, see the stats, enter admin mode, delete."""

import pytest

from shortener.fastpath import flush_visits
from shortener.models import ShortLink
from tests.shortener.conftest import ADMIN_PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Headless Chromium announces itself as "HeadlessChrome", which the counter ignores as a bot.
DESKTOP_CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36"


@pytest.fixture
def visitor_page(browser, live_server):
    context = browser.new_context(user_agent=DESKTOP_CHROME)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def test_user_shortens_follows_checks_stats_and_admin_deletes(visitor_page, live_server, user, settings):
    settings.SHORTENER_ADMINPWD = ADMIN_PASSWORD
    page = visitor_page
    # The favicon and the deleted link are expected 404s; a CSP refusal is not.
    csp_errors: list[str] = []
    page.on("console", lambda message: "Refused to" in message.text and csp_errors.append(message.text))
    base = f"{live_server.url}/s"
    target = f"{live_server.url}/healthz"

    page.goto(f"{base}/login")
    page.get_by_label("Login").fill("alice")
    page.get_by_label("Password").fill("alice-password")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{base}/")

    page.get_by_label("URL to shorten").fill(target)
    page.get_by_role("button", name="Shorten").click()
    page.wait_for_url(f"{base}/")
    short = page.locator("#short-url").input_value()
    code = ShortLink.objects.get().code
    assert short == f"{base}/{code}"
    assert page.locator(".qr svg").is_visible()
    page.get_by_role("button", name="Copy").click()
    page.get_by_text("Copied to the clipboard.").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == short

    page.goto(short)
    assert page.url == target
    assert '"ok"' in page.content()
    flush_visits()  # the server's flusher would write the visit within SHORTENER_VISIT_FLUSH_SECONDS

    page.goto(f"{base}/stats")
    row = page.locator("tbody tr").first
    assert code in row.inner_text()
    assert row.locator("td.number").inner_text() == "1"

    page.get_by_label("Admin password").fill(ADMIN_PASSWORD)
    page.get_by_role("button", name="Enter admin mode").click()
    page.get_by_role("heading", name="All short links").wait_for()

    page.get_by_role("link", name=f"Delete {short}").click()
    # A confirmation first (issue 23: the link used to delete at once); its button posts the form.
    page.get_by_role("heading", name=f"Delete {code}?").wait_for()
    assert not ShortLink.objects.get().is_deleted
    page.get_by_role("button", name="Delete this link").click()
    page.get_by_text(f"The shortened URL {short} has been deleted.").wait_for()
    assert ShortLink.objects.get().is_deleted

    response = page.goto(short)
    assert response.status == 404
    assert "no longer exists" in page.content()

    page.goto(f"{base}/logout")
    page.wait_for_url(f"{base}/logged-out")
    assert "You have been successfully logged out." in page.content()
    assert csp_errors == []
