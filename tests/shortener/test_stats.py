"""GET /stats (own links, or all links in admin mode) and GET /stats/<code>."""

import datetime
import time

import pytest
from rest_framework import status

from shortener import messages
from shortener.fastpath import flush_visits
from tests.shortener.asserts import assert_shortener_error
from tests.shortener.breakdowns import empty_breakdowns
from tests.shortener.factories import ShortLinkFactory
from tests.shortener.qr import assert_png_qr_of

pytestmark = pytest.mark.django_db


def test_stats_json_lists_own_links_most_visited_first(alice_client, user, other_user):
    ShortLinkFactory(code="low", owner=user, url="https://low.example/", counter=1)
    high = ShortLinkFactory(code="high", owner=user, url="https://high.example/", counter=5)
    ShortLinkFactory(code="bobs", owner=other_user, counter=99)

    response = alice_client.get("/s/stats", {"_format": "json"})

    assert response.status_code == status.HTTP_200_OK
    items = response.json()
    for item in items:
        assert_png_qr_of(item.pop("qrcode"), item["short"])
    assert items == [
        {
            "short": "http://testserver/s/high",
            "url": "https://high.example/",
            "counter": 5,
            "created_at": int(high.created_at.timestamp()),
        },
        {
            "short": "http://testserver/s/low",
            "url": "https://low.example/",
            "counter": 1,
            "created_at": items[1]["created_at"],
        },
    ]


def test_stats_json_leaves_out_deleted_links(alice_client, user):
    ShortLinkFactory(owner=user, deleted_at=datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))

    response = alice_client.get("/s/stats", {"_format": "json"})

    assert response.json() == []


def test_stats_json_is_empty_for_a_user_without_links(bob_client, user):
    ShortLinkFactory(owner=user)

    response = bob_client.get("/s/stats", {"_format": "json"})

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == []


def test_stats_needs_login_in_json(client, db):
    response = client.get("/s/stats", {"_format": "json"})

    assert_shortener_error(response, 401, messages.LOGIN_REQUIRED)


def test_stats_sends_anonymous_browsers_to_login(client, db):
    response = client.get("/s/stats")

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/s/login?next=/s/stats"


def test_stats_html_shows_own_links_in_a_table(alice_client, user, other_user):
    ShortLinkFactory(code="mine", owner=user, url="https://mine.example/", counter=3)
    ShortLinkFactory(code="bobs", owner=other_user)

    page = alice_client.get("/s/stats").content.decode()

    assert '<table class="links">' in page
    assert "http://testserver/s/mine" in page
    assert "https://mine.example/" in page
    assert "/s/bobs" not in page
    assert "/s/d/mine" not in page


def test_stats_html_offers_admin_mode_only_when_configured(alice_client, settings):
    settings.SHORTENER_ADMINPWD = ""
    assert 'name="adminpwd"' not in alice_client.get("/s/stats").content.decode()

    settings.SHORTENER_ADMINPWD = "toto"
    assert 'name="adminpwd"' in alice_client.get("/s/stats").content.decode()


def test_stats_own_list_takes_a_fixed_number_of_queries(alice_client, user, django_assert_num_queries):
    ShortLinkFactory.create_batch(5, owner=user)

    with django_assert_num_queries(5):  # session, user, count, page, its links' tags
        response = alice_client.get("/s/stats", {"_format": "json"})

    assert len(response.json()) == 5


def make_ranked_links(count: int, owner) -> None:
    for rank in range(count):
        ShortLinkFactory(code=f"rank{rank:02d}", owner=owner, counter=100 - rank)


def test_admin_stats_json_lists_everyones_links_ten_per_page(admin_mode_client, user, other_user):
    make_ranked_links(6, user)
    for rank in range(6, 12):
        ShortLinkFactory(code=f"rank{rank:02d}", owner=other_user, counter=100 - rank)

    first = admin_mode_client.get("/s/stats", {"_format": "json"})
    second = admin_mode_client.get("/s/stats", {"_format": "json", "page": 2})

    assert [item["short"].rsplit("/", 1)[1] for item in first.json()] == [f"rank{n:02d}" for n in range(10)]
    assert [item["short"].rsplit("/", 1)[1] for item in second.json()] == ["rank10", "rank11"]
    assert first["X-Total-Count"] == "12"


def test_admin_stats_page_past_the_end_is_empty(admin_mode_client, user):
    make_ranked_links(11, user)

    response = admin_mode_client.get("/s/stats", {"_format": "json", "page": 3})

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == []


@pytest.mark.parametrize("page", ["0", "-1", "two", "1.5", "", "²", "٣", "9" * 10])
def test_admin_stats_refuses_a_bad_page(admin_mode_client, page):
    response = admin_mode_client.get("/s/stats", {"_format": "json", "page": page})

    assert_shortener_error(response, 400, messages.PAGE_INVALID)


def test_admin_stats_html_has_pager_links_and_delete_links(admin_mode_client, user):
    make_ranked_links(11, user)

    first = admin_mode_client.get("/s/stats").content.decode()
    second = admin_mode_client.get("/s/stats", {"page": 2}).content.decode()

    assert 'href="?page=2"' in first
    assert 'rel="prev"' not in first
    assert "Page 1 of 2" in first
    assert 'href="/s/delete/rank00"' in first
    assert "rank10" not in first
    assert 'href="?page=1"' in second
    assert 'rel="next"' not in second
    assert 'href="/s/delete/rank10"' in second


def test_admin_stats_list_takes_a_fixed_number_of_queries(admin_mode_client, user, django_assert_num_queries):
    make_ranked_links(15, user)

    with django_assert_num_queries(5):  # session, user, count, page, its links' tags
        response = admin_mode_client.get("/s/stats", {"_format": "json"})

    assert len(response.json()) == 10


def test_stats_detail_json_gives_counter_and_unix_times(client, user):
    link = ShortLinkFactory(code="abc", owner=user, url="https://lstu.fr", counter=2)

    before = int(time.time())
    response = client.get("/s/stats/abc", {"_format": "json"})

    body = response.json()
    assert response.status_code == status.HTTP_200_OK
    assert body == {
        "success": True,
        "url": "https://lstu.fr",
        "short": "http://testserver/s/abc",
        "counter": 2,
        "created_at": int(link.created_at.timestamp()),
        "timestamp": body["timestamp"],
        **empty_breakdowns(),
    }
    assert before <= body["timestamp"] <= int(time.time())


def test_stats_detail_is_public_to_other_users(bob_client, user):
    ShortLinkFactory(code="abc", owner=user, counter=3)

    response = bob_client.get("/s/stats/abc", {"_format": "json"})

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["counter"] == 3


def test_stats_detail_counts_a_followed_link(client, user):
    ShortLinkFactory(code="abc", owner=user)
    client.get("/s/abc", HTTP_USER_AGENT="Mozilla/5.0 Firefox/140.0")
    flush_visits()

    response = client.get("/s/stats/abc", {"_format": "json"})

    assert response.json()["counter"] == 1


def test_stats_detail_of_unknown_code_is_404(client, db):
    response = client.get("/s/stats/nothere", {"_format": "json"})

    assert_shortener_error(response, 404, "The shortened URL http://testserver/s/nothere doesn't exist.")


def test_stats_detail_of_deleted_code_is_404(client):
    ShortLinkFactory(code="gone", deleted_at=datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))

    response = client.get("/s/stats/gone", {"_format": "json"})

    assert_shortener_error(response, 404, "The shortened URL http://testserver/s/gone no longer exists.")


def test_stats_detail_html_shows_the_counter_and_qr_code(client):
    ShortLinkFactory(code="abc", url="https://lstu.fr", counter=7)

    response = client.get("/s/stats/abc", HTTP_ACCEPT="text/html,application/xhtml+xml,*/*;q=0.8")

    page = response.content.decode()
    assert response.status_code == status.HTTP_200_OK
    assert "<dd>7</dd>" in page
    assert "<svg" in page
