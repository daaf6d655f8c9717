"""Visits per day as SVG charts, and what admin mode says (issue 14, item 5)."""

import datetime
import re

import pytest
import time_machine
from rest_framework import status

from shortener.charts import CHART_DAYS, bar_chart
from shortener.fastpath.visits import write_visits
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

TODAY = datetime.date(2026, 5, 30)
NOON = datetime.datetime(2026, 5, 30, 12, tzinfo=datetime.UTC)


def add_visits(link, day: datetime.date, count: int) -> None:
    """Visits as the visit batch writer records them (Visit rows, counter, per-day counts)."""
    write_visits([(link.pk, f"{day:%m%d}{n:028d}", day) for n in range(count)], wait_for_wal=True)


def bars(html: str) -> dict[str, int]:
    """data-day → data-visits of every bar in the page's chart."""
    return {day: int(visits) for day, visits in re.findall(r'data-day="([\d-]+)" data-visits="(\d+)"', html)}


@pytest.fixture
def link(user):
    return ShortLinkFactory(owner=user, code="chart01", url="https://example.com/")


def test_link_statistics_show_unique_visits_per_day_for_30_days(client, link, other_user):
    add_visits(link, TODAY, 3)
    add_visits(link, TODAY - datetime.timedelta(days=2), 5)
    add_visits(link, TODAY - datetime.timedelta(days=29), 1)
    add_visits(link, TODAY - datetime.timedelta(days=30), 7)  # before the chart
    add_visits(ShortLinkFactory(owner=other_user), TODAY, 9)  # another link

    with time_machine.travel(NOON):
        response = client.get("/s/stats/chart01", HTTP_ACCEPT="text/html")

    assert response.status_code == status.HTTP_200_OK
    html = response.content.decode()
    per_day = bars(html)
    assert len(per_day) == CHART_DAYS
    days = list(per_day)
    assert (days[0], days[-1]) == ("2026-05-01", "2026-05-30")
    assert {day: visits for day, visits in per_day.items() if visits} == {
        "2026-05-01": 1,
        "2026-05-28": 5,
        "2026-05-30": 3,
    }
    assert '<strong data-testid="chart-total">9</strong>' in html
    assert "<title>Thu 28 May: 5 unique visits</title>" in html
    assert "<title>Fri 1 May: 1 unique visit</title>" in html
    assert "<title>Fri 29 May: 0 unique visits</title>" in html
    # The table repeats the bars, newest first.
    assert '<tr><td><time datetime="2026-05-30">May 30, 2026</time></td><td class="number">3</td></tr>' in html


def test_the_chart_needs_no_script_and_no_inline_style(client, link):
    add_visits(link, TODAY, 2)

    with time_machine.travel(NOON):
        html = client.get("/s/stats/chart01", HTTP_ACCEPT="text/html").content.decode()

    chart = html[html.index('<figure class="chart"') : html.index("</figure>")]
    assert "<svg" in chart
    assert "style" not in chart
    assert re.findall(r"<script[^>]*>", html) == [
        '<script src="/static/js/localtime.js" defer>',
        '<script src="/static/js/copy.js" defer>',
    ]


def test_the_tallest_bar_fills_the_plot_and_a_single_visit_still_shows():
    days = [TODAY - datetime.timedelta(days=n) for n in range(2, -1, -1)]

    chart = bar_chart(dict(zip(days, [0, 1, 1000], strict=True)))

    assert [bar.height for bar in chart.bars] == [0, 1.5, 140]
    assert chart.total == 1001
    assert chart.peak == 1000


def test_a_link_without_visits_shows_an_empty_chart(client, link):
    with time_machine.travel(NOON):
        html = client.get("/s/stats/chart01", HTTP_ACCEPT="text/html").content.decode()

    assert set(bars(html).values()) == {0}
    assert "in the last 30 days" in html


def test_json_statistics_are_unchanged_by_the_chart(client, link):
    response = client.get("/s/stats/chart01", {"_format": "json"})

    # Lstu's fields, and the breakdowns of issue 23 over the date range; no chart.
    lstu = {"success", "url", "short", "counter", "created_at", "timestamp"}
    breakdowns = {"from", "to", "referrers", "browsers", "os", "devices", "countries", "bots"}
    assert set(response.json()) == lstu | breakdowns


def test_admin_statistics_show_the_totals_of_the_last_30_days(admin_mode_client, link, other_user):
    add_visits(link, TODAY, 3)
    add_visits(ShortLinkFactory(owner=other_user), TODAY, 4)
    add_visits(ShortLinkFactory(owner=other_user), TODAY - datetime.timedelta(days=10), 2)

    with time_machine.travel(NOON):
        html = admin_mode_client.get("/s/stats").content.decode()

    assert {day: visits for day, visits in bars(html).items() if visits} == {"2026-05-20": 2, "2026-05-30": 7}
    assert '<strong data-testid="chart-total">9</strong>' in html


def test_a_users_own_statistics_have_no_site_wide_chart(alice_client, link):
    add_visits(link, TODAY, 3)

    html = alice_client.get("/s/stats").content.decode()

    assert "visits-chart" not in html


# What admin mode says on the pages.


def test_entering_admin_mode_says_admin_mode_on(alice_client, admin_password):
    response = alice_client.post("/s/stats", {"adminpwd": admin_password}, follow=True)

    html = response.content.decode()
    assert '<p class="admin-status" role="status" data-testid="admin-status">Admin mode on</p>' in html
    assert "successfully logged in" not in html


def test_leaving_admin_mode_says_admin_mode_off(admin_mode_client):
    response = admin_mode_client.post("/s/stats", {"action": "logout"}, follow=True)

    html = response.content.decode()
    assert "Admin mode off" in html
    assert "Admin mode on" not in html
    assert "successfully logged out" not in html


def test_a_wrong_password_says_how_many_tries_are_left_before_the_ban(alice_client, admin_password):
    pages = [alice_client.post("/s/stats", {"adminpwd": "wrong"}) for _ in range(4)]

    assert [page.status_code for page in pages] == [403, 403, 403, 429]
    texts = [page.content.decode() for page in pages]
    assert "Bad password. 2 more tries before this address is banned for 1\xa0hour." in texts[0]
    assert "Bad password. 1 more try before this address is banned for 1\xa0hour." in texts[1]
    assert "Bad password. No tries left: this address is banned for 1\xa0hour." in texts[2]
    assert "Too many bad passwords. You&#x27;re banned." in texts[3]
    assert alice_client.post("/s/stats", {"adminpwd": admin_password}).status_code == 429


def test_json_keeps_lstus_bad_password_message(alice_client, admin_password):
    response = alice_client.post("/s/stats", {"adminpwd": "wrong", "_format": "json"})

    assert response.json() == {"success": False, "msg": "Bad password"}
