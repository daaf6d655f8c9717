"""The counter counts unique visits: one per visitor, per link, per UTC day."""

import datetime

import pytest
import time_machine
from django.core.management import call_command

from shortener.fastpath import flush_visits
from shortener.fastpath.visits import seen, write_visits
from shortener.models import DailyVisits, ShortLink, SiteDailyVisits, Visit
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"
CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36"


@pytest.fixture
def link():
    return ShortLinkFactory(code="abc")


def counter(code: str = "abc") -> int:
    flush_visits()
    return ShortLink.objects.get(code=code).counter


def test_first_visit_counts_one(client, link):
    client.get("/s/abc", HTTP_USER_AGENT=FIREFOX)

    assert counter() == 1


def test_same_visitor_twice_counts_once(client, link):
    client.get("/s/abc", HTTP_USER_AGENT=FIREFOX)
    client.get("/s/abc", HTTP_USER_AGENT=FIREFOX)

    assert counter() == 1


def test_same_visitor_twice_counts_once_even_when_the_process_forgot_it(client, link):
    client.get("/s/abc", HTTP_USER_AGENT=FIREFOX)
    flush_visits()
    seen.clear()  # as after a restart, or in another process

    client.get("/s/abc", HTTP_USER_AGENT=FIREFOX)

    assert counter() == 1


def test_two_addresses_count_two(client, link):
    client.get("/s/abc", HTTP_USER_AGENT=FIREFOX, REMOTE_ADDR="192.0.2.1")
    client.get("/s/abc", HTTP_USER_AGENT=FIREFOX, REMOTE_ADDR="192.0.2.2")

    assert counter() == 2


def test_two_browsers_behind_one_address_count_two(client, link):
    client.get("/s/abc", HTTP_USER_AGENT=FIREFOX)
    client.get("/s/abc", HTTP_USER_AGENT=CHROME)

    assert counter() == 2


def test_one_visitor_on_two_links_counts_on_each(client, link):
    ShortLinkFactory(code="other")

    client.get("/s/abc", HTTP_USER_AGENT=FIREFOX)
    client.get("/s/other", HTTP_USER_AGENT=FIREFOX)

    assert counter() == 1
    assert counter("other") == 1


def test_same_visitor_counts_again_the_next_utc_day(client, link):
    with time_machine.travel(datetime.datetime(2026, 5, 1, 23, 59, tzinfo=datetime.UTC)):
        client.get("/s/abc", HTTP_USER_AGENT=FIREFOX)
    with time_machine.travel(datetime.datetime(2026, 5, 2, 0, 1, tzinfo=datetime.UTC)):
        client.get("/s/abc", HTTP_USER_AGENT=FIREFOX)

    assert counter() == 2


@pytest.mark.parametrize(
    "user_agent",
    [
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
        "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
        "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
        "TelegramBot (like TwitterBot)",
        "WhatsApp/2.23.20.0",
        "Mastodon/4.3.0 (http.rb/5.2.0; +https://mastodon.social/)",
        "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
    ],
)
def test_bots_and_preview_fetchers_do_not_count(client, link, user_agent):
    response = client.get("/s/abc", HTTP_USER_AGENT=user_agent)

    assert response.status_code == 302
    assert counter() == 0


def test_cubot_phone_is_not_taken_for_a_bot(client, link):
    client.get("/s/abc", HTTP_USER_AGENT="Mozilla/5.0 (Linux; Android 9; CUBOT P30) AppleWebKit/537.36 Chrome/120.0")

    assert counter() == 1


def test_head_request_does_not_count(client, link):
    response = client.head("/s/abc", HTTP_USER_AGENT=FIREFOX)

    assert response.status_code == 302
    assert counter() == 0


@pytest.mark.parametrize(
    ("header", "value"),
    [("HTTP_SEC_PURPOSE", "prefetch"), ("HTTP_SEC_PURPOSE", "prefetch;prerender"), ("HTTP_PURPOSE", "prefetch")],
)
def test_prefetch_does_not_count(client, link, header, value):
    client.get("/s/abc", HTTP_USER_AGENT=FIREFOX, **{header: value})

    assert counter() == 0


def test_prefetch_does_not_spoil_the_real_visit(client, link):
    client.get("/s/abc", HTTP_USER_AGENT=FIREFOX, HTTP_SEC_PURPOSE="prefetch")

    client.get("/s/abc", HTTP_USER_AGENT=FIREFOX)

    assert counter() == 1


def test_json_lookup_does_not_count(client, link):
    client.get("/s/abc", {"_format": "json"}, HTTP_USER_AGENT=FIREFOX)

    assert counter() == 0


def test_visit_rows_hold_no_raw_address(client, link):
    client.get("/s/abc", HTTP_USER_AGENT=FIREFOX, REMOTE_ADDR="198.51.100.77")
    flush_visits()

    visit = Visit.objects.get()
    assert "198.51.100.77" not in visit.visitor
    assert len(visit.visitor) == 32


def test_visitor_hash_changes_every_day(client, link):
    with time_machine.travel(datetime.datetime(2026, 5, 1, 12, tzinfo=datetime.UTC)):
        client.get("/s/abc", HTTP_USER_AGENT=FIREFOX)
    with time_machine.travel(datetime.datetime(2026, 5, 2, 12, tzinfo=datetime.UTC)):
        client.get("/s/abc", HTTP_USER_AGENT=FIREFOX)
    flush_visits()

    first, second = Visit.objects.order_by("day").values_list("visitor", flat=True)
    assert first != second


def test_prune_command_keeps_visit_rows_of_days_still_visitable_and_the_counts_the_charts_show(link):
    # Visit rows only tell repeat visitors of a day apart: today's and yesterday's (a batch
    # buffered at midnight) stay. The charts read the daily counts, kept for the 30 days they show.
    days = [datetime.date(2026, 4, 3), datetime.date(2026, 4, 4), datetime.date(2026, 5, 1), datetime.date(2026, 5, 2)]
    write_visits([(link.pk, "a" * 32, day) for day in [*days, datetime.date(2026, 5, 3)]], wait_for_wal=True)

    with time_machine.travel(datetime.datetime(2026, 5, 3, 12, tzinfo=datetime.UTC)):
        call_command("shortener_prune_visits", "--batch", "2", verbosity=0)

    assert list(Visit.objects.order_by("day").values_list("day", flat=True)) == [
        datetime.date(2026, 5, 2),
        datetime.date(2026, 5, 3),
    ]
    assert list(DailyVisits.objects.order_by("day").values_list("day", flat=True)) == [
        datetime.date(2026, 4, 4),
        datetime.date(2026, 5, 1),
        datetime.date(2026, 5, 2),
        datetime.date(2026, 5, 3),
    ]
    assert SiteDailyVisits.objects.count() == 5
    assert ShortLink.objects.get(pk=link.pk).counter == 5


def test_a_visit_again_on_a_kept_day_still_counts_once_after_pruning(link):
    yesterday, today = datetime.date(2026, 5, 2), datetime.date(2026, 5, 3)
    write_visits([(link.pk, "b" * 32, yesterday)], wait_for_wal=True)

    with time_machine.travel(datetime.datetime(2026, 5, 3, 0, 0, 1, tzinfo=datetime.UTC)):
        call_command("shortener_prune_visits", verbosity=0)
    # Yesterday's visit, still buffered at midnight in another process, written again.
    assert write_visits([(link.pk, "b" * 32, yesterday), (link.pk, "b" * 32, today)], wait_for_wal=True) == 1

    assert ShortLink.objects.get(pk=link.pk).counter == 2
    assert dict(DailyVisits.objects.values_list("day", "visits")) == {yesterday: 1, today: 1}
