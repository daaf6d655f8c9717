"""Issue 23's short-link pages in Chromium at 1280 and 390 px: list and search, edit, delete, breakdowns, password."""

import pytest

from shortener import fastpath
from shortener.models import LinkTag, ShortLink
from tests.browser import DESKTOP, PHONE, collect_csp_errors, overflow, sign_in
from tests.shortener.factories import ShortLinkFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Headless Chromium announces itself as "HeadlessChrome", which the counter ignores as a bot.
DESKTOP_CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36"


@pytest.fixture(params=[DESKTOP, PHONE], ids=["1280px", "390px"])
def viewport(request):
    return request.param


@pytest.fixture
def context(browser, viewport):
    context = browser.new_context(viewport=viewport, user_agent=DESKTOP_CHROME)
    yield context
    context.close()


@pytest.fixture
def page(context, live_server, user):
    sign_in(context, live_server, user)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.csp_errors = collect_csp_errors(page)
    return page


def assert_fits(page):
    assert overflow(page) == 0
    assert page.csp_errors == []


def test_many_links_are_paged_and_searchable(page, live_server, user):
    for n in range(130):
        link = ShortLinkFactory(owner=user, code=f"lnk{n:03d}", url=f"https://site{n % 3}.example/{n}")
        if n % 10 == 0:
            LinkTag.objects.create(link=link, name="tenth")
    base = f"{live_server.url}/s"

    page.goto(f"{base}/stats")
    assert page.locator("tbody tr").count() == 100
    assert "Page 1 of 2" in page.locator(".pager").inner_text()
    # One phone screen's worth of pages, not 34,901 px: the list is paged.
    assert page.evaluate("document.documentElement.scrollHeight") < 100 * 90
    assert_fits(page)

    page.get_by_label("Search your links").fill("site1.example")
    page.get_by_role("button", name="Search").click()
    assert page.get_by_test_id("filters").inner_text().startswith("Matching “site1.example”: 43 links")
    assert page.locator("tbody tr").count() == 43
    assert_fits(page)

    if page.viewport_size["width"] > 400:
        page.locator("a.tag", has_text="tenth").first.click()
    else:  # one line a link on a phone: the tags are chosen in the form
        page.get_by_label("Search your links").fill("")
        page.get_by_label("Tag", exact=True).fill("tenth")
        page.get_by_role("button", name="Search").click()
    page.wait_for_url("**/s/stats?*tag=tenth")
    assert page.locator("tbody tr").count() == 13
    assert_fits(page)


def test_the_owner_edits_a_link_and_the_redirect_follows(page, live_server, user):
    ShortLinkFactory(owner=user, code="editme", url="https://before.example/")
    base = f"{live_server.url}/s"

    page.goto(f"{base}/stats")
    page.get_by_role("link", name=f"Edit {base}/editme").click()
    page.get_by_label("Target URL").fill("not a url")
    page.get_by_label("Target URL").evaluate("input => input.type = 'text'")  # past the browser's own check
    page.get_by_role("button", name="Save").click()
    assert "is not a valid URL" in page.get_by_role("alert").inner_text()
    assert_fits(page)

    page.get_by_label("Target URL").fill(f"{live_server.url}/healthz")
    page.get_by_label("Stops working after this many unique visits").fill("5")
    page.get_by_label("Tags").fill("docs, health")
    page.get_by_role("button", name="Save").click()
    page.get_by_text(f"The shortened URL {base}/editme has been updated.").wait_for()
    assert_fits(page)
    link = ShortLink.objects.get(code="editme")
    assert (link.url, link.max_visits) == (f"{live_server.url}/healthz", 5)

    page.goto(f"{base}/editme")
    assert page.url == f"{live_server.url}/healthz"


def test_deleting_asks_first_then_deletes_with_the_form(page, live_server, user):
    ShortLinkFactory(owner=user, code="dropme", url="https://drop.example/a/very/long/path/" + "x" * 150)
    base = f"{live_server.url}/s"

    page.goto(f"{base}/stats")
    delete = page.get_by_role("link", name=f"Delete {base}/dropme")
    # "Delete" never wraps mid-word.
    assert delete.evaluate("link => link.getClientRects().length") == 1
    delete.click()
    page.get_by_role("heading", name="Delete dropme?").wait_for()
    assert_fits(page)
    assert not ShortLink.objects.get(code="dropme").is_deleted

    page.get_by_role("button", name="Delete this link").click()
    page.get_by_text(f"The shortened URL {base}/dropme has been deleted.").wait_for()
    assert ShortLink.objects.get(code="dropme").is_deleted
    assert_fits(page)


def test_the_statistics_show_the_breakdowns_of_a_chosen_range(page, context, live_server, user):
    ShortLinkFactory(owner=user, code="counted", url=f"{live_server.url}/healthz")
    visitor = context.browser.new_context(user_agent=DESKTOP_CHROME)
    try:
        visitor.new_page().goto(f"{live_server.url}/s/counted", referer="https://news.example/item")
    finally:
        visitor.close()
    fastpath.flush_visits()  # the server's own flusher would within SHORTENER_VISIT_FLUSH_SECONDS

    page.goto(f"{live_server.url}/s/stats/counted")

    assert "1 unique visit from" in page.get_by_test_id("range-total").inner_text()
    browsers = page.locator("table.breakdown", has=page.locator("caption", has_text="Browsers"))
    assert browsers.locator("tbody tr").first.inner_text().split("\t") == ["Chrome", "1"]
    referrers = page.locator("table.breakdown", has=page.locator("caption", has_text="Referrers"))
    assert "news.example" in referrers.inner_text()
    assert "Regional Internet Registries" in page.locator(".credits").inner_text()
    assert_fits(page)

    page.get_by_label("From", exact=True).fill("2026-01-01")
    page.get_by_label("To", exact=True).fill("2026-01-31")
    page.get_by_role("button", name="Show").click()
    page.wait_for_url("**from=2026-01-01&to=2026-01-31")
    assert "0 unique visits from 01/01/2026 to 01/31/2026" in page.get_by_test_id("range-total").inner_text()
    assert_fits(page)

    with page.expect_download() as download:
        page.get_by_role("button", name="SVG").click()
    assert download.value.suggested_filename == "counted-qr-512.svg"


def test_a_protected_link_asks_for_its_password(browser, viewport, live_server, user):
    from django.contrib.auth.hashers import make_password

    ShortLinkFactory(owner=user, code="locked", url=f"{live_server.url}/healthz", password_hash=make_password("pw"))
    context = browser.new_context(viewport=viewport, user_agent=DESKTOP_CHROME)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.csp_errors = collect_csp_errors(page)
    try:
        page.goto(f"{live_server.url}/s/locked")
        page.get_by_role("heading", name="This link is protected").wait_for()
        assert_fits(page)
        page.get_by_label("Password").fill("wrong")
        page.get_by_role("button", name="Go on").click()
        assert "Wrong password" in page.get_by_role("alert").inner_text()
        page.get_by_label("Password").fill("pw")
        page.get_by_role("button", name="Go on").click()
        page.wait_for_url(f"{live_server.url}/healthz")
    finally:
        context.close()
    fastpath.flush_visits()
    assert ShortLink.objects.get(code="locked").counter == 1


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_edit_and_delete_pages_fit_in_both_colour_schemes(browser, live_server, user, scheme):
    ShortLinkFactory(owner=user, code="themed", url="https://themed.example/" + "long-segment/" * 20)
    for viewport in (PHONE, DESKTOP):
        context = browser.new_context(viewport=viewport, color_scheme=scheme)
        sign_in(context, live_server, user)
        page = context.new_page()
        page.csp_errors = collect_csp_errors(page)
        try:
            for path in ("/s/edit/themed", "/s/delete/themed", "/s/stats/themed"):
                page.goto(f"{live_server.url}{path}")
                assert_fits(page)
            # The outlined danger button reads in both schemes: its text is the page's red, not the button blue.
            button = page.get_by_role("link", name="Delete")
            assert button.evaluate("b => getComputedStyle(b).backgroundColor") == "rgba(0, 0, 0, 0)"
        finally:
            context.close()
