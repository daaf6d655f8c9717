"""The visits charts and admin mode's messages in a real browser, on a desktop and at 390 px."""

import datetime

import pytest
from django.utils import timezone

from shortener.fastpath.visits import write_visits
from tests.browser import DESKTOP, PHONE, collect_csp_errors, overflow, sign_in
from tests.shortener.conftest import ADMIN_PASSWORD
from tests.shortener.factories import ShortLinkFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(params=[DESKTOP, PHONE], ids=["desktop", "390px"])
def page(request, browser, live_server, user):
    context = browser.new_context(viewport=request.param)
    sign_in(context, live_server, user)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.csp_errors = collect_csp_errors(page)
    yield page
    context.close()


def test_a_link_shows_its_visits_per_day_as_a_chart(page, live_server, user):
    link = ShortLinkFactory(owner=user, code="charted")
    today = timezone.now().date()
    for offset, count in ((0, 4), (3, 2)):
        day = today - datetime.timedelta(days=offset)
        # As the visit batch writer records them: Visit rows and the per-day counts the chart reads.
        write_visits([(link.pk, f"{offset}-{n}".ljust(32, "x"), day) for n in range(count)], wait_for_wal=True)

    page.goto(f"{live_server.url}/s/stats/charted")

    chart = page.get_by_test_id("visits-chart")
    assert chart.locator("svg").is_visible()
    assert page.get_by_test_id("chart-total").inner_text() == "6"
    today_bar = chart.locator(f'rect[data-day="{today:%Y-%m-%d}"]')
    three_days_ago = chart.locator(f'rect[data-day="{today - datetime.timedelta(days=3):%Y-%m-%d}"]')
    assert today_bar.bounding_box()["height"] == pytest.approx(2 * three_days_ago.bounding_box()["height"], rel=0.01)
    # Coloured by the stylesheet (var(--accent)), which the CSP allows.
    assert today_bar.evaluate("bar => getComputedStyle(bar).fill") == "rgb(11, 95, 255)"
    page.get_by_text("The same as a table").click()
    newest = page.locator("details tbody tr").first  # the day in the reader's format, ISO in its <time>
    assert newest.locator("time").get_attribute("datetime") == f"{today:%Y-%m-%d}"
    assert newest.inner_text().split()[-1] == "4"
    assert overflow(page) == 0
    assert page.csp_errors == []


def test_admin_mode_counts_down_the_tries_then_says_it_is_on(page, live_server, settings):
    settings.SHORTENER_ADMINPWD = ADMIN_PASSWORD
    page.goto(f"{live_server.url}/s/stats")

    page.get_by_label("Admin password").fill("wrong")
    page.get_by_role("button", name="Enter admin mode").click()
    assert (
        page.get_by_role("alert").inner_text()
        == "Bad password. 2 more tries before this address is banned for 1\xa0hour."
    )
    page.get_by_label("Admin password").fill(ADMIN_PASSWORD)
    page.get_by_role("button", name="Enter admin mode").click()

    assert page.get_by_test_id("admin-status").inner_text() == "Admin mode on"
    assert page.get_by_test_id("visits-chart").is_visible()
    assert "successfully logged in" not in page.content()
    assert overflow(page) == 0
    page.get_by_role("button", name="Leave admin mode").click()
    page.get_by_text("Admin mode off").wait_for()
    assert page.csp_errors == []
