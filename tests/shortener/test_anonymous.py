"""SHORTENER_ALLOW_ANONYMOUS: an open instance as a public Lstu, with its rapid-shortening ban."""

import re

import pytest
from django.test import Client
from rest_framework import status

from shortener import messages
from shortener.models import ShortLink
from tests.shortener.asserts import assert_shortener_error, assert_shortener_error_page
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

BANNED_RE = re.compile(r"You asked to shorten too many URLs too quickly\. You're banned for \d+ hour\(s\)\.")


@pytest.fixture
def open_instance(settings):
    settings.SHORTENER_ALLOW_ANONYMOUS = True
    # One window for the whole test, so that a burst cannot straddle two windows.
    settings.SHORTENER_ANONYMOUS_BURST_SECONDS = 3600


def shorten(client: Client, url: str, **extra):
    return client.post("/s/a", {"lsturl": url, "_format": "json"}, **extra)


def test_anonymous_shortening_is_refused_by_default(client):
    response = shorten(client, "https://lstu.fr")

    assert_shortener_error(response, 401, messages.LOGIN_REQUIRED)
    assert not ShortLink.objects.exists()


def test_open_instance_shortens_for_no_one(client, open_instance):
    response = shorten(client, "https://lstu.fr")

    link = ShortLink.objects.get()
    assert response.status_code == status.HTTP_200_OK
    assert response.json()["short"] == f"http://testserver/s/{link.code}"
    assert link.owner is None


def test_open_instance_html_form_shows_the_result(client, open_instance):
    page = client.get("/s/")

    created = client.post("/s/a", {"shorturl": "https://lstu.fr"}, follow=True)

    link = ShortLink.objects.get()
    assert 'name="shorturl"' in page.content.decode()
    assert f"http://testserver/s/{link.code}" in created.content.decode()


def test_anonymous_links_appear_only_in_admin_stats(client, alice_client, admin_mode_client, open_instance):
    shorten(client, "https://lstu.fr")
    code = ShortLink.objects.get().code

    own = Client()
    own.force_login(ShortLinkFactory().owner)
    users_view = own.get("/s/stats", {"_format": "json"}).json()
    admin_view = admin_mode_client.get("/s/stats", {"_format": "json"}).json()

    assert f"http://testserver/s/{code}" not in [item["short"] for item in users_view]
    assert f"http://testserver/s/{code}" in [item["short"] for item in admin_view]


def test_the_blocked_hosts_apply_to_anonymous_clients(client, open_instance, settings):
    settings.SHORTENER_BLOCKED_HOSTS = r"google\.(fr|com)$"

    refused = shorten(client, "https://google.com/")
    allowed = shorten(client, "https://google.de/")

    assert_shortener_error(refused, 403, messages.HOST_BLOCKED.format(host="google.com"))
    assert allowed.json()["success"] is True
    assert ShortLink.objects.get().url == "https://google.de/"


def test_sixth_rapid_shortening_is_banned_as_lstu_does(client, open_instance):
    answers = [shorten(client, f"https://example.com/{n}") for n in range(6)]

    assert [answer.json()["success"] for answer in answers] == [True] * 5 + [False]
    assert answers[5].status_code == status.HTTP_429_TOO_MANY_REQUESTS
    assert BANNED_RE.fullmatch(answers[5].json()["msg"])
    assert answers[5]["Retry-After"] == "3600"
    assert ShortLink.objects.count() == 5


def test_a_ban_is_per_address(client, open_instance):
    for n in range(6):
        shorten(client, f"https://example.com/{n}")

    other = shorten(client, "https://example.com/other", REMOTE_ADDR="192.0.2.7")

    assert other.json()["success"] is True


def test_asking_while_banned_renews_and_then_lengthens_the_ban(client, open_instance, settings):
    settings.SHORTENER_ANONYMOUS_BAN_STRIKES = 3
    for n in range(6):
        shorten(client, f"https://example.com/{n}")

    second = shorten(client, "https://example.com/again")
    third = shorten(client, "https://example.com/again")

    assert second.json()["msg"] == messages.ANONYMOUS_BANNED.format(hours=1)
    assert third.json()["msg"] == messages.ANONYMOUS_BANNED.format(hours=720)
    assert third["Retry-After"] == str(720 * 3600)
    assert ShortLink.objects.count() == 5


def test_logged_in_users_are_not_subject_to_the_anonymous_ban(alice_client, open_instance):
    answers = [shorten(alice_client, f"https://example.com/{n}") for n in range(7)]

    assert all(answer.json()["success"] for answer in answers)


def test_anonymous_same_url_gets_the_same_generated_code(client, open_instance):
    first = shorten(client, "https://lstu.fr").json()["short"]
    second = shorten(client, "https://lstu.fr").json()["short"]

    assert first == second
    assert ShortLink.objects.count() == 1


def test_anonymous_html_post_still_needs_the_csrf_token(open_instance):
    client = Client(enforce_csrf_checks=True)

    response = client.post("/s/a", {"shorturl": "https://lstu.fr"})

    assert_shortener_error_page(response, 403, messages.CSRF_FAILED)
    assert not ShortLink.objects.exists()
