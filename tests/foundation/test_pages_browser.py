"""Every HTML page in a real browser: fits a 390 px phone, follows the system's dark mode, no CSP refusals."""

import pytest
from django.contrib.auth import get_user_model

from tests.browser import DESKTOP, PHONE, collect_csp_errors, overflow, sign_in
from tests.pastes.factories import PasteFactory
from tests.reports.factories import ReportFactory
from tests.shortener.conftest import ADMIN_PASSWORD
from tests.shortener.factories import ShortLinkFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG_URL = "https://example.com/" + "a-very-long-path-segment-without-any-space-" * 12 + "?q=" + "x" * 200
CHROME_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36"


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_superuser("root", "root@example.com", "root-password")


@pytest.fixture
def site(staff, settings):
    """Data behind every page: a report, a locked report, a short link and a paste, all with a long URL."""
    settings.SHORTENER_ADMINPWD = ADMIN_PASSWORD
    report = ReportFactory(owner=staff, url=LONG_URL)
    locked = ReportFactory(page_password="open sesame")
    link = ShortLinkFactory(owner=staff, url=LONG_URL)
    paste = PasteFactory(owner=staff, content=f"import os\nurl = '{LONG_URL}'\n")
    burning = PasteFactory(owner=staff, name=LONG_URL[:100], burn_after_read=True)
    return {"report": report, "locked": locked, "link": link, "paste": paste, "burning": burning}


def visit_every_page(page, live_server, site) -> list[str]:
    """Open every HTML page as a signed-in staff user would; return the paths opened."""
    base = live_server.url
    paths = [
        "/",
        "/no-such-page",
        f"/reports/{site['report'].pk}",
        f"/reports/{site['locked'].pk}",
        "/reports/",
        "/reports/projects",
        "/reports/new",
        "/admin/",
        "/admin/shortener/shortlink/",
        f"/admin/shortener/shortlink/{site['link'].pk}/change/",
        "/s/",
        f"/s/stats/{site['link'].code}",
        "/s/stats",
        "/s/no-such-code",
        f"/pastes/{site['paste'].pk}",
        f"/pastes/{site['burning'].pk}",
        "/pastes/AAAAAAAAAAAA",
        "/pastes/",
        "/pastes/new",
        f"/pastes/{site['paste'].pk}/edit",
        f"/pastes/{site['paste'].pk}/delete",
        f"/pastes/{site['paste'].pk}/fork",
    ]
    seen = []
    for path in paths:
        page.goto(base + path)
        seen.append((path, overflow(page)))

    # The shorten result, which once was 711 px wide with a long target.
    page.goto(f"{base}/s/")
    page.get_by_label("URL to shorten").fill(LONG_URL + "&new=1")
    page.get_by_role("button", name="Shorten").click()
    page.locator("#short-url").wait_for()
    seen.append(("/s/ (result)", overflow(page)))

    page.get_by_role("link", name="Statistics").click()
    page.get_by_label("Admin password").fill(ADMIN_PASSWORD)
    page.get_by_role("button", name="Enter admin mode").click()
    page.get_by_role("heading", name="All short links").wait_for()
    seen.append(("/s/stats (admin)", overflow(page)))

    page.goto(f"{base}/api/docs/")
    page.locator(".swagger-ui .info .title").wait_for()
    seen.append(("/api/docs/", overflow(page)))

    page.goto(f"{base}/s/logout")
    page.wait_for_url("**/s/logged-out")
    seen.append(("/s/logged-out", overflow(page)))
    for path in ("/s/login", "/admin/login/"):
        page.goto(base + path)
        seen.append((path, overflow(page)))
    return seen


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "desktop"])
def test_no_page_is_wider_than_the_viewport_and_none_breaks_the_csp(browser, live_server, site, staff, viewport):
    context = browser.new_context(viewport=viewport, user_agent=CHROME_UA)
    page = context.new_page()
    page.set_default_timeout(15_000)
    csp_errors = collect_csp_errors(page)
    sign_in(context, live_server, staff)

    seen = visit_every_page(page, live_server, site)

    context.close()
    assert [path for path, extra in seen if extra > 0] == [], seen
    assert len(seen) == 28
    assert csp_errors == []


def test_pages_follow_the_system_dark_mode(browser, live_server, site):
    backgrounds = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(color_scheme=scheme)
        page = context.new_page()
        page.goto(f"{live_server.url}/reports/{site['report'].pk}")
        backgrounds[scheme] = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
        page.goto(f"{live_server.url}/s/login")
        text = page.evaluate("getComputedStyle(document.body).color")
        context.close()
        backgrounds[f"{scheme} text"] = text

    assert backgrounds == {
        "light": "rgb(255, 255, 255)",
        "light text": "rgb(31, 35, 40)",
        "dark": "rgb(13, 17, 23)",
        "dark text": "rgb(230, 237, 243)",
    }
