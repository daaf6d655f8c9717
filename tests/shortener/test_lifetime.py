"""Link lifetime: expires_at and max_visits at creation, on the stats pages, and in export/import."""

import datetime
import json
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import IntegrityError
from django.test import Client
from django.utils import timezone
from rest_framework import status

from shortener import messages
from shortener.fastpath import flush_visits
from shortener.fastpath import links as fastpath_links
from shortener.models import ApiKey, ShortLink
from shortener.services.links import link_delete
from tests.shortener.asserts import assert_shortener_error, assert_shortener_error_page
from tests.shortener.factories import ShortLinkFactory
from tests.shortener.test_redirect_shortcut import wsgi_request

pytestmark = pytest.mark.django_db

IN_A_DAY = datetime.datetime(2099, 5, 17, 12, 30, tzinfo=datetime.UTC)


def shorten(client: Client, **fields):
    return client.post("/s/a", {"lsturl": "https://lstu.fr", "_format": "json", **fields})


def test_create_with_expiry_and_max_visits_in_a_form(alice_client):
    response = shorten(alice_client, expires_at="2099-05-17T12:30", max_visits="3")

    link = ShortLink.objects.get()
    assert response.status_code == status.HTTP_200_OK
    assert (link.expires_at, link.max_visits) == (IN_A_DAY, 3)
    assert response.json()["expires_at"] == int(IN_A_DAY.timestamp())
    assert response.json()["max_visits"] == 3


def test_create_with_lifetime_as_json_numbers(alice_client):
    body = {"shorturl": "https://lstu.fr", "expires_at": int(IN_A_DAY.timestamp()), "max_visits": 1}

    response = alice_client.post("/s/a", body, content_type="application/json")

    link = ShortLink.objects.get()
    assert response.json()["success"] is True
    assert (link.expires_at, link.max_visits) == (IN_A_DAY, 1)


def test_create_with_lifetime_and_an_api_token(user):
    _api_key, raw_key = ApiKey.issue(user=user)

    response = Client().post(
        "/s/a",
        {"lsturl": "https://lstu.fr", "expires_at": "2099-05-17T14:30:00+02:00"},
        HTTP_AUTHORIZATION=f"Bearer {raw_key}",
    )

    assert response.json()["expires_at"] == int(IN_A_DAY.timestamp())
    assert ShortLink.objects.get().owner == user


def test_plain_links_keep_lstus_exact_answer(alice_client):
    body = shorten(alice_client).json()

    assert body.keys() == {"success", "url", "short", "qrcode"}


@pytest.mark.parametrize(
    ("fields", "msg"),
    [
        ({"expires_at": "tomorrow"}, messages.EXPIRES_INVALID),
        ({"expires_at": "2020-01-01T00:00"}, messages.EXPIRES_IN_PAST),
        ({"expires_at": "1"}, messages.EXPIRES_IN_PAST),
        ({"expires_at": "9999-01-01T00:00"}, messages.EXPIRES_TOO_FAR),
        ({"expires_at": "2099-13-45T99:00"}, messages.EXPIRES_INVALID),
        ({"max_visits": "0"}, messages.MAX_VISITS_INVALID.format(limit=2**31 - 1)),
        ({"max_visits": "-3"}, messages.MAX_VISITS_INVALID.format(limit=2**31 - 1)),
        ({"max_visits": "2.5"}, messages.MAX_VISITS_INVALID.format(limit=2**31 - 1)),
        ({"max_visits": "99999999999"}, messages.MAX_VISITS_INVALID.format(limit=2**31 - 1)),
    ],
)
def test_bad_lifetime_is_refused_and_nothing_is_made(alice_client, fields, msg):
    response = shorten(alice_client, **fields)

    assert_shortener_error(response, 400, msg)
    assert not ShortLink.objects.exists()


@pytest.mark.parametrize("value", [True, 2.5, [1], {"n": 1}])
def test_lifetime_of_a_wrong_json_type_is_refused(alice_client, value):
    body = {"shorturl": "https://lstu.fr", "max_visits": value}

    response = alice_client.post("/s/a", body, content_type="application/json")

    assert_shortener_error(response, 400, messages.FIELD_NOT_TEXT.format(field="max_visits"))
    assert not ShortLink.objects.exists()


def test_bad_lifetime_in_the_html_form_keeps_what_was_typed(alice_client):
    response = alice_client.post("/s/a", {"shorturl": "https://lstu.fr", "max_visits": "zero"})

    page = response.content.decode()
    assert_shortener_error_page(
        response, 400, "The maximum number of visits must be a whole number from 1 to 2147483647."
    )
    assert 'value="zero"' in page
    assert 'value="https://lstu.fr"' in page


def test_a_link_with_a_lifetime_is_always_a_new_one(alice_client):
    plain = shorten(alice_client).json()["short"]
    limited = shorten(alice_client, max_visits="5").json()["short"]
    again = shorten(alice_client).json()["short"]

    assert plain == again
    assert limited != plain
    assert ShortLink.objects.count() == 2


def test_database_refuses_a_zero_max_visits():
    with pytest.raises(IntegrityError):
        ShortLinkFactory(max_visits=0)


def test_stats_detail_shows_the_lifetime_and_its_state(client):
    ShortLinkFactory(code="spent", max_visits=2, counter=2, expires_at=IN_A_DAY)

    page = client.get("/s/stats/spent", HTTP_ACCEPT="text/html").content.decode()
    body = client.get("/s/stats/spent").json()

    assert "May 17, 2099, 12:30 p.m. UTC" in page  # the reader's format (English here)
    assert "(reached: the link answers 404)" in page
    assert body["max_visits"] == 2
    assert body["expires_at"] == int(IN_A_DAY.timestamp())


def test_expired_link_keeps_its_statistics(client, alice_client, user):
    ShortLinkFactory(code="old", owner=user, counter=7, expires_at=timezone.now() - datetime.timedelta(days=1))

    detail = client.get("/s/stats/old")
    listing = alice_client.get("/s/stats", {"_format": "json"}).json()
    page = alice_client.get("/s/stats").content.decode()

    assert detail.status_code == status.HTTP_200_OK
    assert detail.json()["counter"] == 7
    assert [item["counter"] for item in listing] == [7]
    assert "expired" in page


def test_fullstats_does_not_count_expired_or_used_up_links(client):
    ShortLinkFactory()
    ShortLinkFactory(expires_at=timezone.now() - datetime.timedelta(seconds=1))
    ShortLinkFactory(max_visits=1, counter=1)
    ShortLinkFactory(max_visits=2, counter=1)

    assert client.get("/s/fullstats").json()["urls"] == 2


def test_lifetime_survives_export_and_import(alice_client, bob_client, user, other_user):
    ShortLinkFactory(code="mine", owner=user, is_custom=True, expires_at=IN_A_DAY, max_visits=4)
    exported = alice_client.get("/s/export").getvalue()
    ShortLink.objects.all().delete()

    upload = SimpleUploadedFile("links.json", exported)
    response = bob_client.post("/s/import", {"file": upload, "_format": "json"})

    assert response.json()["created"] == 1
    link = ShortLink.objects.get()
    assert (link.code, link.owner, link.expires_at, link.max_visits) == ("mine", other_user, IN_A_DAY, 4)


def test_import_refuses_an_expired_entry_with_its_reason(alice_client):
    entries = [{"url": "https://lstu.fr", "expires_at": 1}]

    upload = SimpleUploadedFile("links.json", json.dumps(entries).encode())
    response = alice_client.post("/s/import", {"file": upload, "_format": "json"})

    assert response.json()["lines"] == [{"line": 1, "status": "refused", "msg": messages.EXPIRES_IN_PAST}]
    assert not ShortLink.objects.exists()


# --- the redirect ---------------------------------------------------------

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"


USED_UP = messages.LINK_USED_UP.format(short="http://testserver/s/one")


def visit(client: Client, code: str, address: str, **extra):
    return client.get(f"/s/{code}", REMOTE_ADDR=address, HTTP_USER_AGENT=FIREFOX, **extra)


def test_expired_link_answers_404_with_its_message(client):
    ShortLinkFactory(code="old", expires_at=timezone.now() - datetime.timedelta(seconds=1))

    page = client.get("/s/old", HTTP_ACCEPT="text/html")
    resolved = client.get("/s/old", {"_format": "json"})

    assert_shortener_error_page(page, 404, "The shortened URL http://testserver/s/old has expired.")
    assert_shortener_error(resolved, 404, "The shortened URL http://testserver/s/old has expired.")


def test_link_stops_once_cached_when_its_expiry_passes(client, monkeypatch):
    ShortLinkFactory(code="soon", url="https://lstu.fr", expires_at=timezone.now() + datetime.timedelta(hours=1))
    before = client.get("/s/soon")
    later = time.time() + 2 * 3600
    monkeypatch.setattr(time, "time", lambda: later)

    after = client.get("/s/soon", {"_format": "json"})

    assert before.status_code == status.HTTP_302_FOUND
    assert_shortener_error(after, 404, messages.LINK_EXPIRED.format(short="http://testserver/s/soon"))


def test_max_visits_counts_unique_visits_and_then_answers_404(client):
    ShortLinkFactory(code="two", url="https://lstu.fr", max_visits=2)

    first = visit(client, "two", "192.0.2.1")
    same_visitor = visit(client, "two", "192.0.2.1")
    second = visit(client, "two", "192.0.2.2")
    third = visit(client, "two", "192.0.2.3", HTTP_ACCEPT="application/json")
    flush_visits()

    assert [first.status_code, same_visitor.status_code, second.status_code] == [302, 302, 302]
    assert_shortener_error(third, 404, messages.LINK_USED_UP.format(short="http://testserver/s/two"))
    link = ShortLink.objects.get()
    assert link.counter == 2
    assert link.is_used_up


def test_bots_and_json_lookups_do_not_use_up_visits(client):
    ShortLinkFactory(code="one", max_visits=1)

    client.get("/s/one", HTTP_USER_AGENT="Mozilla/5.0 (compatible; Googlebot/2.1)")
    client.get("/s/one", {"_format": "json"})
    client.head("/s/one")
    human = visit(client, "one", "192.0.2.9")

    assert human.status_code == status.HTTP_302_FOUND
    assert human["Location"] == ShortLink.objects.get(code="one").url


def test_a_link_used_up_in_another_process_stops_here_at_once(client):
    ShortLinkFactory(code="two", max_visits=2)
    assert visit(client, "two", "192.0.2.1").status_code == status.HTTP_302_FOUND
    # Another process (or server) counted the second visit: no version check, no flush needed here.
    ShortLink.objects.filter(code="two").update(counter=2)

    refused = visit(client, "two", "192.0.2.2", HTTP_ACCEPT="application/json")

    assert_shortener_error(refused, 404, messages.LINK_USED_UP.format(short="http://testserver/s/two"))
    assert ShortLink.objects.get().counter == 2


def test_visits_of_a_limited_link_are_counted_during_the_request(client):
    ShortLinkFactory(code="two", max_visits=2)

    visit(client, "two", "192.0.2.1")
    visit(client, "two", "192.0.2.1")  # the same visitor again, the same day: counted once

    assert ShortLink.objects.get().counter == 1  # without a flush


def test_a_bot_passes_a_limited_link_without_counting_until_it_is_used_up(client):
    ShortLinkFactory(code="one", max_visits=1)
    bot = {"HTTP_USER_AGENT": "Mozilla/5.0 (compatible; Googlebot/2.1)"}

    before = client.get("/s/one", **bot)
    visit(client, "one", "192.0.2.1")
    after = client.get("/s/one", **bot)

    assert (before.status_code, after.status_code) == (status.HTTP_302_FOUND, status.HTTP_404_NOT_FOUND)
    assert ShortLink.objects.get().counter == 1


def test_a_link_deleted_between_lookup_and_visit_answers_gone(client):
    link = ShortLinkFactory(code="one", max_visits=5)
    cached = fastpath_links.cached_link("", "one")
    ShortLink.objects.filter(pk=link.pk).update(deleted_at=timezone.now())

    assert fastpath_links.lifetime_over(cached) is None  # the copy does not know yet
    response = client.get("/s/one", {"_format": "json"})

    assert_shortener_error(response, 404, messages.LINK_GONE.format(short="http://testserver/s/one"))


def test_the_flush_that_reaches_the_limit_tells_every_process(client):
    ShortLinkFactory(code="one", max_visits=1)
    version = fastpath_links.links_version()

    visit(client, "one", "192.0.2.1")
    flush_visits()

    assert fastpath_links.links_version() > version


def test_a_flush_below_the_limit_leaves_the_other_processes_alone(client):
    ShortLinkFactory(code="many", max_visits=10)
    ShortLinkFactory(code="plain")
    version = fastpath_links.links_version()

    visit(client, "many", "192.0.2.1")
    visit(client, "plain", "192.0.2.1")
    flush_visits()

    assert fastpath_links.links_version() == version


def test_a_limited_link_stops_exactly_at_its_limit_through_the_wsgi_application():
    ShortLinkFactory(code="two", url="https://lstu.fr", max_visits=2)

    answers = [wsgi_request("/s/two", REMOTE_ADDR=f"192.0.2.{n}", HTTP_USER_AGENT=FIREFOX)[0] for n in range(1, 5)]

    assert answers == [302, 302, 404, 404]
    assert ShortLink.objects.get().counter == 2  # counted during the requests, without a flush


def test_expired_link_is_refused_by_the_wsgi_shortcut(monkeypatch):
    ShortLinkFactory(code="soon", url="https://lstu.fr", expires_at=timezone.now() + datetime.timedelta(hours=1))
    assert wsgi_request("/s/soon")[0] == status.HTTP_302_FOUND
    later = time.time() + 2 * 3600
    monkeypatch.setattr(time, "time", lambda: later)

    refused, _headers, body = wsgi_request("/s/soon", HTTP_ACCEPT="application/json")

    assert refused == status.HTTP_404_NOT_FOUND
    assert json.loads(body)["msg"] == messages.LINK_EXPIRED.format(short="http://testserver/s/soon")


def test_preloaded_links_carry_their_lifetime():
    ShortLinkFactory(code="one", max_visits=3, counter=3, expires_at=IN_A_DAY)

    fastpath_links.local_links.preload(10)

    cached = fastpath_links.local_links.get(("", "one"))
    assert (cached.max_visits, cached.counter, cached.expires_at) == (3, 3, IN_A_DAY.timestamp())
    assert fastpath_links.lifetime_over(cached) == fastpath_links.USED_UP


def test_visits_not_yet_written_still_count_after_the_copies_are_dropped(client, monkeypatch):
    monkeypatch.setattr(fastpath_links.local_links, "_version", None)
    ShortLinkFactory(code="one", max_visits=1)
    other = ShortLinkFactory(code="other")
    assert visit(client, "one", "192.0.2.1").status_code == status.HTTP_302_FOUND

    link_delete(link=other)  # drops every copy here and bumps the version, before the visit is written
    fastpath_links.local_links.check_version()

    assert_shortener_error_page(visit(client, "one", "192.0.2.2"), 404, USED_UP)
