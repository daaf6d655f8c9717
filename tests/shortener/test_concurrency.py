"""Parallel visits and creates on PostgreSQL: no lost counts, no duplicate codes."""

import datetime

import pytest
from django.test import Client

from shortener.errors import Failure
from shortener.fastpath import flush_visits
from shortener.fastpath.visits import VisitBuffer, seen
from shortener.models import DailyVisits, ShortLink, SiteDailyVisits, Visit, VisitBreakdown
from shortener.services.links import link_create
from tests.concurrency import run_concurrently
from tests.shortener.factories import ShortLinkFactory, UserFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 12


def test_parallel_visits_of_distinct_visitors_all_count():
    ShortLinkFactory(code="hot")
    slots = iter([f"192.0.2.{n}" for n in range(1, THREADS + 1)])

    def visit() -> int:
        return Client().get("/s/hot", REMOTE_ADDR=next(slots), HTTP_USER_AGENT="Firefox").status_code

    results = run_concurrently(visit, times=THREADS)

    assert results == [302] * THREADS
    flush_visits()
    assert ShortLink.objects.get(code="hot").counter == THREADS


def test_parallel_visits_of_one_visitor_counted_during_the_request_count_once(settings):
    settings.SHORTENER_VISIT_FLUSH_SECONDS = 0
    ShortLinkFactory(code="hot")

    def visit() -> int:
        # Each thread forgets the visitors seen, so every one of them reaches the database row.
        seen.clear()
        return Client().get("/s/hot", HTTP_USER_AGENT="Firefox").status_code

    results = run_concurrently(visit, times=THREADS)

    assert results == [302] * THREADS
    assert ShortLink.objects.get(code="hot").counter == 1


def test_parallel_flushes_of_overlapping_visits_count_each_visitor_once():
    links = [ShortLinkFactory(code=f"hot{n}") for n in range(3)]
    visitors = [f"{n:032d}" for n in range(20)]
    buffers = []
    for offset in range(THREADS):
        # Each "process" saw the same visits, in its own order.
        buffer = VisitBuffer()
        buffer.start_flusher = lambda: None
        for n in range(len(links) * len(visitors)):
            index = (n + offset * 7) % (len(links) * len(visitors))
            buffer.add((links[index % len(links)].pk, visitors[index // len(links)], datetime.date(2026, 5, 1)))
        buffers.append(buffer)
    slots = iter(buffers)

    results = run_concurrently(lambda: next(slots).flush(), times=THREADS)

    assert sum(results) == len(links) * len(visitors)
    assert [link.counter for link in ShortLink.objects.order_by("code")] == [len(visitors)] * len(links)


def test_limited_visits_beside_parallel_flushes_agree_everywhere():
    """Links with max_visits counted during their requests while buffers of other links are written.

    Both lock the rows every counted visit shares (the site's day, the links' ranking buckets):
    no deadlock, no lost count, and counters, per-day counts and breakdowns equal the Visit rows.
    """
    limited = [ShortLinkFactory(code=f"lim{n}", max_visits=1000) for n in range(3)]
    plain = [ShortLinkFactory(code=f"pla{n}") for n in range(3)]
    today = datetime.datetime.now(datetime.UTC).date()
    jobs = []
    for offset in range(THREADS // 2):
        buffer = VisitBuffer()
        buffer.start_flusher = lambda: None
        for n in range(60):
            buffer.add((plain[n % 3].pk, f"{offset:02d}{n:030d}", today), ("Firefox/140.0", "", "US"))
        jobs.append(buffer.flush)

    def visit_limited_links(offset: int) -> int:
        client = Client()
        for n in range(10):
            address = f"192.0.{offset}.{n + 1}"
            assert client.get(f"/s/lim{n % 3}", REMOTE_ADDR=address, HTTP_USER_AGENT="Firefox").status_code == 302
        return 10

    jobs += [lambda offset=offset: visit_limited_links(offset) for offset in range(THREADS // 2)]
    slots = iter(jobs)

    results = run_concurrently(lambda: next(slots)(), times=THREADS)

    assert sum(results) == 60 * (THREADS // 2) + 10 * (THREADS // 2)
    for link in [*limited, *plain]:
        visits = Visit.objects.filter(link=link).count()
        assert ShortLink.objects.get(pk=link.pk).counter == visits > 0
        assert sum(DailyVisits.objects.filter(link=link).values_list("visits", flat=True)) == visits
        agents = VisitBreakdown.objects.filter(link=link, dimension="agents").values_list("visits", flat=True)
        assert sum(agents) == visits
    assert SiteDailyVisits.objects.get(day=today).visits == Visit.objects.count() == sum(results)


def test_parallel_creates_of_one_url_by_one_user_give_one_code():
    user = UserFactory()

    results = run_concurrently(
        lambda: link_create(owner_id=user.pk, url="https://example.com/race").code, times=THREADS
    )

    assert len(set(results)) == 1
    assert ShortLink.objects.count() == 1


def test_parallel_creates_through_the_api_give_one_code():
    user = UserFactory()

    def create() -> str:
        client = Client()
        client.force_login(user)
        return client.post("/s/a", {"shorturl": "https://example.com/race", "_format": "json"}).json()["short"]

    results = run_concurrently(create, times=THREADS)

    assert len(set(results)) == 1
    assert ShortLink.objects.count() == 1


def test_parallel_creates_of_one_custom_text_give_one_winner():
    slots = iter(UserFactory.create_batch(THREADS))

    def create() -> str:
        owner = next(slots)
        try:
            link_create(owner_id=owner.pk, url=f"https://example.com/{owner.pk}", custom="prize")
        except Failure as failure:
            return str(failure.status)
        return "created"

    results = run_concurrently(create, times=THREADS)

    assert sorted(results) == ["409"] * (THREADS - 1) + ["created"]
    assert ShortLink.objects.filter(code="prize").count() == 1


def test_parallel_creates_of_distinct_urls_give_distinct_codes(monkeypatch):
    user = UserFactory()
    # Few possible codes, so that threads collide and must retry.
    codes = iter(["aaaaaaaa", "aaaaaaaa", "bbbbbbbb"] * 4 + [f"c{n:07d}" for n in range(100)])
    monkeypatch.setattr(ShortLink, "generate_code", classmethod(lambda cls: next(codes)))
    slots = iter([f"https://example.com/{n}" for n in range(THREADS)])

    results = run_concurrently(lambda: link_create(owner_id=user.pk, url=next(slots)).code, times=THREADS)

    assert all(isinstance(code, str) for code in results)
    assert len(set(results)) == THREADS
    assert ShortLink.objects.count() == THREADS
