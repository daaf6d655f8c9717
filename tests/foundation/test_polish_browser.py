"""Site-wide polish in Chromium (issue 23, item 4): times typed and shown in the reader's time zone, /api/docs/
dark with the site, form controls in the site's colours in light and dark."""

from datetime import UTC, datetime, timedelta

import pytest

from shortener.models import ShortLink
from tests.browser import DESKTOP, PHONE, collect_csp_errors, overflow, sign_in
from tests.pastes.factories import PasteFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TOKYO = "Asia/Tokyo"  # UTC+9 all year: no daylight saving time to reckon with


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "390px"])
def test_a_link_expiry_is_typed_in_local_time_and_stored_in_utc(browser, live_server, user, viewport):
    context = browser.new_context(viewport=viewport, timezone_id=TOKYO)
    sign_in(context, live_server, user)
    page = context.new_page()
    page.set_default_timeout(10_000)
    csp_errors = collect_csp_errors(page)
    day = (datetime.now(UTC) + timedelta(days=3)).date()

    page.goto(f"{live_server.url}/s/")
    assert page.get_by_text(f"your time: {TOKYO}").is_visible()
    page.get_by_label("URL to shorten").fill("https://example.com/a/page")
    page.locator("#expires_at").fill(f"{day.isoformat()}T09:30")
    page.get_by_role("button", name="Shorten").click()
    page.wait_for_url(f"{live_server.url}/s/")

    link = ShortLink.objects.get()
    assert link.expires_at == datetime(day.year, day.month, day.day, 0, 30, tzinfo=UTC)  # 09:30 in Tokyo
    page.goto(f"{live_server.url}/s/stats/{link.code}")
    expiry = page.locator("dt:text-is('Expires') + dd time")
    assert expiry.inner_text() == f"{day:%b} {day.day}, {day.year}, 9:30 AM {TOKYO}"
    assert overflow(page) == 0
    assert csp_errors == []
    context.close()


# Written in the page's language (issue 48), as the browser's Intl formats it.
@pytest.mark.parametrize(
    ("locale", "shown"),
    [
        ("en-US", "Jan 3, 2026, 8:15 AM"),
        ("fr", "3 janv. 2026, 08:15"),
        ("de", "03.01.2026, 08:15"),
        ("es", "3 ene 2026, 8:15"),
    ],
)
def test_a_paste_shows_its_times_in_local_time_and_the_readers_format(browser, live_server, user, locale, shown):
    context = browser.new_context(timezone_id=TOKYO, locale=locale)
    page = context.new_page()
    paste = PasteFactory(owner=user, created_at=datetime(2026, 1, 2, 23, 15, tzinfo=UTC))

    page.goto(f"{live_server.url}/pastes/{paste.id}")

    assert page.locator("time[data-local]").first.inner_text() == f"{shown} {TOKYO}"
    context.close()


@pytest.mark.parametrize(("scheme", "background"), [("light", "rgb(250, 250, 250)"), ("dark", "rgb(13, 17, 23)")])
def test_the_api_docs_follow_the_systems_colour_scheme(browser, live_server, scheme, background):
    context = browser.new_context(color_scheme=scheme, viewport=PHONE)
    page = context.new_page()
    page.set_default_timeout(10_000)
    csp_errors = collect_csp_errors(page)

    page.goto(f"{live_server.url}/api/docs/")
    page.locator(".swagger-ui .opblock-summary").first.wait_for()

    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == background
    swagger_filter = page.evaluate("getComputedStyle(document.getElementById('swagger-ui')).filter")
    assert ("invert" in swagger_filter) == (scheme == "dark")
    assert page.evaluate("document.documentElement.lang") == "en"
    assert overflow(page) == 0
    assert csp_errors == []
    context.close()


@pytest.mark.parametrize(
    ("scheme", "field", "border"),
    [("light", "rgb(255, 255, 255)", "rgb(129, 139, 152)"), ("dark", "rgb(13, 17, 23)", "rgb(101, 108, 118)")],
)
def test_date_number_and_text_inputs_take_the_sites_colours(browser, live_server, user, scheme, field, border):
    context = browser.new_context(color_scheme=scheme, viewport=PHONE)
    sign_in(context, live_server, user)
    page = context.new_page()

    page.goto(f"{live_server.url}/s/")

    for selector in ("#shorturl", "#expires_at", "#max_visits"):
        style = page.evaluate(
            "(selector) => { const s = getComputedStyle(document.querySelector(selector));"
            " return [s.backgroundColor, s.borderTopColor, s.color]; }",
            selector,
        )
        assert style[:2] == [field, border], selector
        assert style[2] == page.evaluate("getComputedStyle(document.body).color"), selector
    context.close()


def test_the_time_zone_hint_is_in_the_pages_language(browser, live_server, user):
    context = browser.new_context(timezone_id=TOKYO, locale="fr")
    sign_in(context, live_server, user)
    page = context.new_page()

    page.goto(f"{live_server.url}/s/")

    assert page.locator("[data-utc-hint=expires_at]").inner_text() == f"(facultatif, votre heure\u00a0: {TOKYO})"
    context.close()
