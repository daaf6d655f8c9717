"""Statistics breakdowns (issue 23): referrers, browsers, OS, devices and countries over a date range, bots apart."""

import datetime
import threading

import pytest
from django.db import connection
from rest_framework import status

from shortener import fastpath, messages
from shortener.fastpath.visits import VisitBuffer, write_visits
from shortener.models import DailyVisits, ShortLink, Visit, VisitBreakdown
from shortener.services.breakdowns import AGENT_PART_MAX, RANGE_MAX_DAYS, agent_name, agent_parts
from shortener.services.visits import breakdowns_prune, visits_prune
from tests.shortener.asserts import assert_shortener_error
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

JSON = {"_format": "json"}
FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
SAFARI_IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
)
CHROME_WINDOWS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36"
)
IPAD = (
    "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.0 Mobile/15E148 Safari/604.1"
)
GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
# Addresses in blocks the registries delegated to these countries (Google DNS, a Hetzner block, APNIC's 1.0.16.0/20).
US_ADDRESS, DE_ADDRESS, JP_ADDRESS = "8.8.8.8", "88.198.0.1", "1.0.16.1"


@pytest.fixture
def link(user):
    return ShortLinkFactory(code="brk", owner=user, url="https://example.com/")


def visit(client, code, *, agent, address, referer=""):
    headers = {"HTTP_USER_AGENT": agent, "REMOTE_ADDR": address}
    if referer:
        headers["HTTP_REFERER"] = referer
    return client.get(f"/s/{code}", **headers)


def as_dict(items):
    return {item["name"]: item["visits"] for item in items}


def test_breakdowns_count_each_new_visitor_once_in_every_dimension(client, link):
    visit(client, "brk", agent=FIREFOX_LINUX, address=US_ADDRESS, referer="https://www.news.example/item?id=1")
    visit(client, "brk", agent=FIREFOX_LINUX, address=US_ADDRESS, referer="https://other.example/")  # same visitor
    visit(client, "brk", agent=SAFARI_IPHONE, address=DE_ADDRESS, referer="https://news.example/")
    visit(client, "brk", agent=CHROME_WINDOWS, address=JP_ADDRESS)
    visit(client, "brk", agent=IPAD, address="10.0.0.1")
    fastpath.flush_visits()

    body = client.get("/s/stats/brk", JSON).json()

    assert body["counter"] == 4
    assert as_dict(body["referrers"]) == {"news.example": 2, "Direct": 2}
    assert as_dict(body["browsers"]) == {"Firefox": 1, "Mobile Safari": 2, "Chrome": 1}
    assert as_dict(body["os"]) == {"Linux": 1, "iOS": 2, "Windows": 1}
    assert as_dict(body["devices"]) == {"Desktop": 2, "Mobile": 1, "Tablet": 1}
    assert as_dict(body["countries"]) == {"US": 1, "DE": 1, "JP": 1, "Unknown": 1}
    assert body["bots"] == []
    # Most first, each a {name, visits}.
    assert body["browsers"][0] == {"name": "Mobile Safari", "visits": 2}


def test_bots_are_counted_apart_and_never_in_the_counter(client, link):
    visit(client, "brk", agent=GOOGLEBOT, address=US_ADDRESS)
    visit(client, "brk", agent=GOOGLEBOT, address=US_ADDRESS)
    visit(client, "brk", agent=FIREFOX_LINUX, address=US_ADDRESS)
    fastpath.flush_visits()

    body = client.get("/s/stats/brk", JSON).json()

    assert body["counter"] == 1
    assert body["bots"] == [{"name": "Googlebot", "visits": 2}]
    assert as_dict(body["browsers"]) == {"Firefox": 1}


def test_one_batch_sums_each_links_visitors_and_robots_apart(client, user):
    """Visitors sharing a User-Agent, Referer and country, on two links, with robots: one flush."""
    ShortLinkFactory(code="one", owner=user)
    ShortLinkFactory(code="two", owner=user)
    for n in range(3):  # three visitors (three addresses), one User-Agent, Referer and country
        visit(client, "one", agent=FIREFOX_LINUX, address=f"8.8.8.{n + 1}")
    visit(client, "two", agent=FIREFOX_LINUX, address=US_ADDRESS)
    visit(client, "two", agent=SAFARI_IPHONE, address=DE_ADDRESS, referer="https://news.example/")
    for code in ("one", "one", "two"):
        visit(client, code, agent=GOOGLEBOT, address=US_ADDRESS)
    fastpath.flush_visits()

    one = client.get("/s/stats/one", JSON).json()
    two = client.get("/s/stats/two", JSON).json()

    assert (one["counter"], two["counter"]) == (3, 2)
    assert as_dict(one["browsers"]) == {"Firefox": 3}
    assert as_dict(one["countries"]) == {"US": 3}
    assert as_dict(one["referrers"]) == {"Direct": 3}
    assert one["bots"] == [{"name": "Googlebot", "visits": 2}]
    assert as_dict(two["browsers"]) == {"Firefox": 1, "Mobile Safari": 1}
    assert as_dict(two["countries"]) == {"US": 1, "DE": 1}
    assert as_dict(two["referrers"]) == {"Direct": 1, "news.example": 1}
    assert two["bots"] == [{"name": "Googlebot", "visits": 1}]


def test_breakdowns_equal_the_raw_visits_and_survive_pruning(client, link):
    agents = [FIREFOX_LINUX, SAFARI_IPHONE, CHROME_WINDOWS, IPAD, ""]
    addresses = [US_ADDRESS, DE_ADDRESS, JP_ADDRESS, "192.0.2.1"]
    for index in range(40):
        agent = agents[index % len(agents)]
        visit(client, "brk", agent=f"{agent} n{index // 7}" if agent else "", address=addresses[index % 4])
    fastpath.flush_visits()
    raw = Visit.objects.filter(link=link).count()
    assert raw == ShortLink.objects.get(pk=link.pk).counter > 0

    body = client.get("/s/stats/brk", JSON).json()
    for dimension in ("referrers", "browsers", "os", "devices", "countries"):
        assert sum(item["visits"] for item in body[dimension]) == raw, dimension

    # The Visit rows of past days go; the breakdowns stay, read from their own rows.
    Visit.objects.filter(link=link).update(day=datetime.date.today() - datetime.timedelta(days=5))
    VisitBreakdown.objects.filter(link=link).update(day=datetime.date.today() - datetime.timedelta(days=5))
    DailyVisits.objects.filter(link=link).update(day=datetime.date.today() - datetime.timedelta(days=5))
    visits_prune()
    assert not Visit.objects.filter(link=link).exists()
    after = client.get("/s/stats/brk", JSON).json()
    for dimension in ("referrers", "browsers", "os", "devices", "countries"):
        assert after[dimension] == body[dimension]


def test_the_visitor_address_is_never_stored(client, link):
    visit(client, "brk", agent=FIREFOX_LINUX, address="203.0.113.77", referer="https://203.0.113.99/")
    fastpath.flush_visits()

    names = list(VisitBreakdown.objects.values_list("name", flat=True))
    visitors = list(Visit.objects.values_list("visitor", flat=True))
    assert names and visitors
    assert not any("203.0.113.77" in value for value in [*names, *visitors])


def test_a_limited_link_keeps_its_breakdowns_in_the_counting_transaction(client, user):
    ShortLinkFactory(code="lim", owner=user, max_visits=5)

    visit(client, "lim", agent=SAFARI_IPHONE, address=DE_ADDRESS)
    visit(client, "lim", agent=GOOGLEBOT, address=DE_ADDRESS)
    fastpath.flush_visits()

    body = client.get("/s/stats/lim", JSON).json()
    assert body["counter"] == 1
    assert as_dict(body["countries"]) == {"DE": 1}
    assert body["bots"] == [{"name": "Googlebot", "visits": 1}]


def test_visits_written_during_the_request_keep_breakdowns_too(client, link, settings):
    settings.SHORTENER_VISIT_FLUSH_SECONDS = 0

    visit(client, "brk", agent=CHROME_WINDOWS, address=JP_ADDRESS, referer="https://t.example/x")
    visit(client, "brk", agent=GOOGLEBOT, address=JP_ADDRESS)

    body = client.get("/s/stats/brk", JSON).json()
    assert as_dict(body["referrers"]) == {"t.example": 1}
    assert body["bots"] == [{"name": "Googlebot", "visits": 1}]


def test_the_date_range_chooses_the_days(client, link):
    days = [datetime.date(2026, 3, 1), datetime.date(2026, 3, 10)]
    for day in days:
        write_visits([(link.pk, f"{day:%d}".ljust(32, "v"), day)], wait_for_wal=True, details={})

    march_first = client.get("/s/stats/brk", {**JSON, "from": "2026-03-01", "to": "2026-03-05"}).json()
    both = client.get("/s/stats/brk", {**JSON, "from": "2026-03-01", "to": "2026-03-31"}).json()

    assert (march_first["from"], march_first["to"]) == ("2026-03-01", "2026-03-05")
    assert march_first["browsers"] == [{"name": "Unknown", "visits": 1}]
    assert both["browsers"] == [{"name": "Unknown", "visits": 2}]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"from": "yesterday"}, messages.DATE_INVALID),
        ({"to": "2026-02-30"}, messages.DATE_INVALID),
        ({"from": "2026-03-05", "to": "2026-03-01"}, messages.DATE_RANGE_INVALID.format(days=RANGE_MAX_DAYS)),
        ({"from": "2020-01-01", "to": "2026-03-01"}, messages.DATE_RANGE_INVALID.format(days=RANGE_MAX_DAYS)),
        ({"from": "0000-01-01"}, messages.DATE_INVALID),
        ({"from": "99999-01-01"}, messages.DATE_INVALID),
    ],
)
def test_a_bad_date_range_gets_c_error_shape(client, link, query, message):
    assert_shortener_error(client.get("/s/stats/brk", {**JSON, **query}), 400, message)


@pytest.mark.parametrize("who", ["owner", "other", "anonymous"])
def test_breakdowns_are_public_like_the_counter(request, link, who):
    client = {"owner": "alice_client", "other": "bob_client", "anonymous": "client"}[who]
    response = request.getfixturevalue(client).get("/s/stats/brk", JSON)

    assert response.status_code == status.HTTP_200_OK
    assert set(response.json()) >= {"referrers", "browsers", "os", "devices", "countries", "bots"}


def test_the_first_days_of_year_one_are_a_range_not_a_crash(client, link):
    response = client.get("/s/stats/brk", {**JSON, "to": "0001-01-02"})

    assert (response.json()["from"], response.json()["to"]) == ("0001-01-01", "0001-01-02")


def test_unknown_code_has_no_breakdowns(client):
    assert_shortener_error(
        client.get("/s/stats/nope", JSON), 404, messages.LINK_UNKNOWN.format(short="http://testserver/s/nope")
    )


def test_breakdown_pruning_keeps_the_chosen_days(link):
    old, recent = datetime.date.today() - datetime.timedelta(days=400), datetime.date.today()
    for day in (old, recent):
        VisitBreakdown.objects.create(link=link, day=day, dimension="browsers", name="Firefox", visits=1)

    assert breakdowns_prune(keep_days=RANGE_MAX_DAYS - 1) == 1
    assert list(VisitBreakdown.objects.values_list("day", flat=True)) == [recent]


@pytest.mark.django_db(transaction=True)  # the Visit rows' constraint is checked when the batch commits
def test_a_removed_link_takes_its_breakdowns_and_its_later_visits_are_dropped(link, user):
    # The breakdowns have no foreign key constraint in the database (bench/visit_batch.py):
    # the ORM removes them with their link, and the Visit rows' constraint refuses a batch
    # that still holds visits of a removed link, which the writer then writes without them.
    other = ShortLinkFactory(code="brk2", owner=user)
    today = datetime.date.today()
    write_visits([(link.pk, "v1", today), (other.pk, "v1", today)], wait_for_wal=True)
    assert VisitBreakdown.objects.filter(link=link).count() == 3  # referrer, agent, country
    assert DailyVisits.objects.filter(link=link).count() == 1

    removed = link.pk
    link.delete()
    assert not VisitBreakdown.objects.filter(link_id=removed).exists()
    assert not DailyVisits.objects.filter(link_id=removed).exists()

    assert write_visits([(removed, "v2", today), (other.pk, "v2", today)], wait_for_wal=True) == 1
    assert not VisitBreakdown.objects.filter(link_id=removed).exists()
    assert not DailyVisits.objects.filter(link_id=removed).exists()
    assert VisitBreakdown.objects.get(link=other, dimension="agents").visits == 2
    assert DailyVisits.objects.get(link=other).visits == 2
    assert not Visit.objects.filter(link_id=removed).exists()


def test_one_row_keeps_browser_os_and_device_and_rows_kept_apart_before_still_count(client, link):
    # Before, each visit added a row per browser, OS and device; since, one row for the three.
    day = datetime.date.today() - datetime.timedelta(days=1)
    for dimension, name in (("browsers", "Firefox"), ("os", "Linux"), ("devices", "Desktop")):
        VisitBreakdown.objects.create(link=link, day=day, dimension=dimension, name=name, visits=3)
    visit(client, "brk", agent=FIREFOX_LINUX, address=US_ADDRESS)
    visit(client, "brk", agent=SAFARI_IPHONE, address=DE_ADDRESS)
    fastpath.flush_visits()

    agents = VisitBreakdown.objects.filter(link=link, dimension="agents").order_by("name")
    assert [(row.name.split("\x1f"), row.visits) for row in agents] == [
        (["Firefox", "Linux", "Desktop"], 1),
        (["Mobile Safari", "iOS", "Mobile"], 1),
    ]
    body = client.get("/s/stats/brk", {**JSON, "from": day.isoformat()}).json()
    assert body["browsers"] == [{"name": "Firefox", "visits": 4}, {"name": "Mobile Safari", "visits": 1}]
    assert body["os"] == [{"name": "Linux", "visits": 4}, {"name": "iOS", "visits": 1}]
    assert body["devices"] == [{"name": "Desktop", "visits": 4}, {"name": "Mobile", "visits": 1}]
    page = client.get("/s/stats/brk", {"from": day.isoformat()}).content.decode()
    assert "Mobile Safari" in page and "\x1f" not in page


def test_long_browser_names_share_their_row_within_its_size():
    browser = "B\x1f" + "r" * 150
    name = agent_name(browser, "Some OS", "Desktop")

    assert len(name) <= VisitBreakdown._meta.get_field("name").max_length
    assert agent_parts(name) == (("B " + "r" * 150)[:AGENT_PART_MAX], "Some OS", "Desktop")


def test_the_page_shows_the_tables_the_range_and_the_credits(client, link):
    visit(client, "brk", agent=FIREFOX_LINUX, address=US_ADDRESS, referer="https://news.example/")
    fastpath.flush_visits()

    response = client.get("/s/stats/brk", HTTP_ACCEPT="text/html")

    html = response.content.decode()
    assert response.status_code == status.HTTP_200_OK
    for caption in ("Referrers", "Browsers", "Operating systems", "Device types", "Countries", "Robots"):
        assert f"<caption>{caption}" in html
    assert "<td>news.example</td>" in html
    assert "Regional Internet Registries" in html and "ua-parser" in html
    assert 'name="from"' in html and 'name="to"' in html


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_flushes_keep_breakdowns_equal_to_the_raw_visits(user):
    """Two processes' buffers written at once: every dimension still adds up to the Visit rows."""
    links = [ShortLinkFactory(owner=user, code=f"par{n}") for n in range(3)]
    day = datetime.date.today()
    buffers = [VisitBuffer(), VisitBuffer()]
    for buffer in buffers:
        buffer.background = False
    agents = [FIREFOX_LINUX, SAFARI_IPHONE, CHROME_WINDOWS]
    for n in range(300):
        # Both buffers see some of the same visitors, as two processes would.
        for buffer in buffers[: 1 + n % 2]:
            buffer.add((links[n % 3].pk, f"{n:032d}", day), (agents[n % 3], "https://ref.example/", "US"))
    errors = []

    def flush(buffer):
        try:
            buffer.flush()
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=flush, args=(buffer,)) for buffer in buffers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert not errors
    for link in links:
        raw = Visit.objects.filter(link=link).count()
        assert ShortLink.objects.get(pk=link.pk).counter == raw == 100
        for dimension in ("referrers", "agents", "countries"):
            total = sum(VisitBreakdown.objects.filter(link=link, dimension=dimension).values_list("visits", flat=True))
            assert total == raw, dimension


def test_pruning_more_breakdowns_than_a_batch_deletes_every_old_day(user):
    # A batch is the key of up to PRUNE_BATCH rows: as a list of 10,000 four-column keys in the
    # query, PostgreSQL refused it ("stack depth limit exceeded"); a subquery it takes as a join.
    links = ShortLinkFactory.create_batch(30, owner=user)
    old_days = [datetime.date.today() - datetime.timedelta(days=RANGE_MAX_DAYS + n) for n in range(1, 81)]
    names = [f"Browser {n}" for n in range(5)]
    VisitBreakdown.objects.bulk_create(
        VisitBreakdown(link=link, day=day, dimension="browsers", name=name, visits=1)
        for link in links
        for day in old_days
        for name in names
    )
    kept = VisitBreakdown.objects.create(link=links[0], day=datetime.date.today(), dimension="browsers", name="x")

    assert breakdowns_prune(keep_days=RANGE_MAX_DAYS - 1) == 12_000

    assert list(VisitBreakdown.objects.all()) == [kept]
