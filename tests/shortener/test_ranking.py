"""Issue 19: the ranking buckets and link tallies give exactly what the plain queries give.

A middle page of GET /s/stats is found through LinkRankBucket and an own total, /fullstats'
numbers through LinkTally (both kept by triggers on PostgreSQL; SQLite walks and counts): a
page must still be what OFFSET returns, ties included, and a count what COUNT(*) returns,
after visits, deletes, undeletes, removals, new owners and lifetimes change the links.
"""

import datetime
import random

import pytest
from django.db import connection
from django.db.models import Count
from django.db.models.functions import TruncMonth
from django.utils import timezone
from rest_framework import status

from shortener import messages
from shortener.fastpath.visits import write_visits
from shortener.models import CODE_ALPHABET, LinkRankBucket, LinkTally, ShortLink
from shortener.services.links import links_by_popularity, links_live, links_page, live_links_total
from shortener.services.tallies import all_links, generated_codes, owner_live_links, redirecting_links
from tests.concurrency import run_concurrently
from tests.shortener.asserts import assert_shortener_error
from tests.shortener.factories import ShortLinkFactory, UserFactory

pytestmark = pytest.mark.django_db

JSON = {"_format": "json"}
ON_POSTGRESQL = pytest.mark.skipif("connection.vendor != 'postgresql'", reason="PostgreSQL only")


def spread_links(owner, count: int, *, seed: int) -> list[ShortLink]:
    """Links over several UTC months and counters, with ties in both (so buckets hold several links each)."""
    rng = random.Random(seed)
    month = timezone.now().replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    return [
        ShortLinkFactory(
            owner=owner,
            counter=rng.choice([0, 0, 1, 1, 2, 3, 7]),
            # Some exactly at midnight of the 1st, the first instant of a month's bucket (and of a
            # day's tally), some a minute before it, the last instant of the month before.
            created_at=month
            - datetime.timedelta(days=rng.choice([0, 0, 31, 62, 63]), minutes=rng.choice([0, 0, 1, 5, 600])),
        )
        for _ in range(count)
    ]


def offset_codes(queryset, offset: int, size: int) -> list[str]:
    return list(links_by_popularity(queryset).values_list("code", flat=True)[offset : offset + size])


def assert_every_page_is_the_offset_page(queryset, scope: int, size: int) -> None:
    live = queryset.filter(deleted_at__isnull=True).count()
    for page in range(1, live // size + 3):
        rows = links_page(queryset, total=live, page=page, size=size, scope=scope)
        assert [link.code for link in rows] == offset_codes(queryset, (page - 1) * size, size), f"page {page}"


def change_everything(user, other_user) -> None:
    """Visits, soft deletes, undeletes, removals, an owner change, new links: the ranking moves."""
    links = list(ShortLink.objects.order_by("pk"))
    rng = random.Random(11)
    today = timezone.now().date()
    write_visits([(rng.choice(links).pk, f"v{n:031d}", today) for n in range(80)], wait_for_wal=True)
    ShortLink.objects.filter(pk__in=[link.pk for link in links[::6]]).update(deleted_at=timezone.now())
    ShortLink.objects.filter(pk=links[6].pk).update(deleted_at=None)
    ShortLink.objects.filter(pk__in=[link.pk for link in links[1:40:9]]).delete()
    ShortLink.objects.filter(pk=links[2].pk).update(owner=other_user)
    ShortLink.objects.filter(pk=links[3].pk).update(counter=5, created_at=links[4].created_at)
    spread_links(user, 7, seed=99)


@pytest.mark.parametrize("size", [1, 4, 10])
def test_every_admin_page_is_the_offset_page_after_the_ranking_changes(user, other_user, size):
    spread_links(user, 45, seed=1)
    spread_links(other_user, 15, seed=2)
    assert_every_page_is_the_offset_page(ShortLink.objects.all(), LinkRankBucket.ALL, size)

    change_everything(user, other_user)

    assert_every_page_is_the_offset_page(ShortLink.objects.all(), LinkRankBucket.ALL, size)


@pytest.mark.parametrize("size", [1, 3])
def test_every_own_page_is_the_offset_page_after_the_ranking_changes(user, other_user, size):
    spread_links(user, 30, seed=3)
    spread_links(other_user, 20, seed=4)

    change_everything(user, other_user)

    for owner in (user, other_user):
        assert_every_page_is_the_offset_page(ShortLink.objects.filter(owner=owner), owner.pk, size)


def test_deep_admin_json_pages_through_http_are_the_offset_pages(admin_mode_client, user, other_user):
    spread_links(user, 40, seed=5)
    spread_links(other_user, 31, seed=6)
    change_everything(user, other_user)
    live = ShortLink.objects.filter(deleted_at__isnull=True).count()
    last = -(-live // 10)

    for page in range(1, last + 2):
        response = admin_mode_client.get("/s/stats", {**JSON, "page": page})

        assert response.status_code == status.HTTP_200_OK
        assert response["X-Total-Count"] == str(live)
        codes = [item["short"].rsplit("/", 1)[1] for item in response.json()]
        assert codes == offset_codes(ShortLink.objects.all(), (page - 1) * 10, 10), f"page {page}"


def test_own_statistics_total_and_pages_follow_the_owners_links(alice_client, bob_client, user, other_user):
    spread_links(user, 230, seed=7)
    spread_links(other_user, 3, seed=8)
    change_everything(user, other_user)
    mine = ShortLink.objects.filter(owner=user)
    live = mine.filter(deleted_at__isnull=True).count()

    for page in (1, 2, 3):
        response = alice_client.get("/s/stats", {**JSON, "page": page})
        assert response["X-Total-Count"] == str(live)
        codes = [item["short"].rsplit("/", 1)[1] for item in response.json()]
        assert codes == offset_codes(mine, (page - 1) * 100, 100), f"page {page}"
    bobs = bob_client.get("/s/stats", JSON)
    assert bobs["X-Total-Count"] == str(ShortLink.objects.filter(owner=other_user, deleted_at__isnull=True).count())
    assert alice_client.get("/s/stats", {"page": 2}).status_code == status.HTTP_200_OK


def test_statistics_pages_are_refused_to_anonymous_and_bad_pages(client, alice_client, user):
    spread_links(user, 3, seed=9)

    assert_shortener_error(client.get("/s/stats", {**JSON, "page": 2}), 401, messages.LOGIN_REQUIRED)
    assert_shortener_error(alice_client.get("/s/stats", {**JSON, "page": "-3"}), 400, messages.PAGE_INVALID)


# --- counts ----------------------------------------------------------------


def lifetimes(user) -> None:
    """Live links that expired yesterday, earlier today, later today, next week; used up; deleted."""
    now = timezone.now()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    for expires_at in (midnight - datetime.timedelta(hours=3), midnight, now - datetime.timedelta(seconds=1)):
        ShortLinkFactory(owner=user, expires_at=expires_at)
    ShortLinkFactory(owner=user, expires_at=now + datetime.timedelta(minutes=5))
    ShortLinkFactory(owner=user, expires_at=now + datetime.timedelta(days=7))
    ShortLinkFactory(owner=user, max_visits=2, counter=2)
    ShortLinkFactory(owner=user, max_visits=2, counter=1, expires_at=now - datetime.timedelta(days=2))
    ShortLinkFactory(owner=user, max_visits=2, counter=5, expires_at=now - datetime.timedelta(days=2))
    ShortLinkFactory(owner=user, max_visits=3, counter=1)
    ShortLinkFactory(owner=None, code=f"custom{user.pk}", is_custom=True, expires_at=now - datetime.timedelta(days=1))
    ShortLinkFactory(owner=user, expires_at=now - datetime.timedelta(days=1), deleted_at=now)


def test_fullstats_counts_equal_the_links_after_every_kind_of_change(client, user, other_user, settings):
    spread_links(user, 20, seed=10)
    lifetimes(user)
    lifetimes(other_user)
    change_everything(user, other_user)
    limited = ShortLinkFactory(owner=user, max_visits=3, counter=1)
    write_visits([(limited.pk, f"u{n:031d}", timezone.now().date()) for n in range(2)], wait_for_wal=True)  # used up
    ShortLink.objects.filter(max_visits=2, counter=2).update(max_visits=10)  # no longer used up
    ShortLink.objects.filter(expires_at__gt=timezone.now() + datetime.timedelta(days=1)).update(
        expires_at=timezone.now() - datetime.timedelta(days=3)
    )

    response = client.get("/s/fullstats")

    assert response.status_code == status.HTTP_200_OK
    body = response.json()
    assert body["urls"] == links_live().count()
    possible = len(CODE_ALPHABET) ** settings.SHORTENER_CODE_LENGTH
    assert body["empty"] == possible - ShortLink.objects.filter(is_custom=False).count()
    assert generated_codes() == ShortLink.objects.filter(is_custom=False).count()
    assert all_links() == ShortLink.objects.count()
    for owner in (user, other_user):
        assert owner_live_links(owner.pk) == ShortLink.objects.filter(owner=owner, deleted_at__isnull=True).count()
    assert redirecting_links(live_links_total()) == links_live().count()


def test_fullstats_is_public_and_answers_the_same_to_every_user(client, alice_client, user):
    spread_links(user, 5, seed=12)

    answers = [c.get("/s/fullstats").json() for c in (client, alice_client)]

    assert [answer["urls"] for answer in answers] == [5, 5]


@ON_POSTGRESQL
def test_buckets_and_tallies_are_exactly_the_links_grouped(user, other_user):
    spread_links(user, 40, seed=13)
    lifetimes(other_user)
    change_everything(user, other_user)
    other_user.delete()  # the owner goes, their links stay, ownerless

    live = ShortLink.objects.filter(deleted_at__isnull=True).annotate(month=TruncMonth("created_at"))
    expected = {
        (0, row["counter"], row["month"].date()): row["n"]
        for row in live.values("counter", "month").annotate(n=Count("id"))
    }
    expected |= {
        (row["owner_id"], row["counter"], row["month"].date()): row["n"]
        for row in live.filter(owner__isnull=False).values("owner_id", "counter", "month").annotate(n=Count("id"))
    }
    kept = {(b.scope, b.counter, b.month): b.links for b in LinkRankBucket.objects.all()}
    assert kept == expected  # emptied buckets are gone too
    assert LinkTally.objects.filter(value=0).count() == 0
    assert not LinkTally.objects.filter(key=f"owner:{other_user.pk}").exists()


@ON_POSTGRESQL
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_shortenings_visits_and_deletes_keep_the_counts_exact():
    owners = [UserFactory() for _ in range(3)]
    links = [ShortLinkFactory(owner=owners[n % 3]) for n in range(30)]
    today = timezone.now().date()
    jobs = iter(range(12))

    def work() -> None:
        n = next(jobs)
        owner = owners[n % 3]
        for k in range(5):
            ShortLinkFactory(owner=owner, url=f"https://parallel.example/{n}/{k}")
        write_visits([(links[(n + k) % 30].pk, f"p{n:015d}{k:016d}", today) for k in range(10)], wait_for_wal=True)
        ShortLink.objects.filter(pk=links[n].pk).update(deleted_at=timezone.now())

    results = run_concurrently(work, times=12)

    assert results == [None] * 12
    for owner in owners:
        assert owner_live_links(owner.pk) == ShortLink.objects.filter(owner=owner, deleted_at__isnull=True).count()
    assert generated_codes() == all_links() == ShortLink.objects.count()
    assert_every_page_is_the_offset_page(ShortLink.objects.all(), LinkRankBucket.ALL, 7)
    assert_every_page_is_the_offset_page(ShortLink.objects.filter(owner=owners[0]), owners[0].pk, 3)
    assert connection.vendor == "postgresql"


@ON_POSTGRESQL
def test_the_buckets_find_every_links_key_without_falling_back(user, other_user):
    from shortener.services.ranking import POPULARITY, key_at

    spread_links(user, 50, seed=14)
    change_everything(user, other_user)
    ranked = links_by_popularity(ShortLink.objects.all())
    keys = list(ranked.values_list(*POPULARITY))

    assert [key_at(ranked, scope=LinkRankBucket.ALL, offset=n, total=len(keys)) for n in range(len(keys))] == keys
