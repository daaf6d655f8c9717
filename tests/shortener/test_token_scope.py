"""Scope and expiry of interface C's tokens (issue 44): a read token reads and writes nothing, an expired
token is refused like a revoked one."""

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone
from rest_framework import status

from shortener import messages
from shortener.models import ApiKey, ShortLink
from tests.shortener.asserts import assert_shortener_error
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db


def bearer(raw_key: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {raw_key}"}


@pytest.fixture
def read_token(user) -> str:
    return ApiKey.issue(user=user, name="dashboard", scope="read")[1]


def test_a_read_token_lists_and_reads_its_users_links(read_token, user):
    ShortLinkFactory(code="mine", owner=user, url="https://example.com/mine")

    listing = Client().get("/s/stats", **bearer(read_token))
    link = Client().get("/s/edit/mine.json", **bearer(read_token))

    assert [item["short"] for item in listing.json()] == ["http://testserver/s/mine"]
    assert link.status_code == status.HTTP_200_OK
    assert link.json()["url"] == "https://example.com/mine"


def test_a_read_token_cannot_shorten(read_token):
    response = Client(enforce_csrf_checks=True).post("/s/a", {"lsturl": "https://lstu.fr"}, **bearer(read_token))

    assert_shortener_error(response, 403, messages.TOKEN_READ_ONLY)
    assert not ShortLink.objects.exists()


def test_a_read_token_cannot_change_or_delete_a_link(read_token, user):
    ShortLinkFactory(code="mine", owner=user, url="https://example.com/mine")

    edited = Client().patch(
        "/s/edit/mine.json", '{"url": "https://example.org/"}', content_type="application/json", **bearer(read_token)
    )
    deleted = Client().post("/s/d/mine.json", **bearer(read_token))

    assert_shortener_error(edited, 403, messages.TOKEN_READ_ONLY)
    assert_shortener_error(deleted, 403, messages.TOKEN_READ_ONLY)
    link = ShortLink.objects.get()
    assert (link.url, link.is_deleted) == ("https://example.com/mine", False)


def test_a_write_token_still_shortens(user):
    _api_key, raw_key = ApiKey.issue(user=user, scope="write")

    response = Client().post("/s/a", {"lsturl": "https://lstu.fr"}, **bearer(raw_key))

    assert response.status_code == status.HTTP_200_OK
    assert ShortLink.objects.get().owner == user


def test_an_expired_token_is_refused_like_a_revoked_one(user):
    now = timezone.now()
    _expiring, expiring_token = ApiKey.issue(user=user, expires_at=now + timedelta(hours=1))
    revoked, revoked_token = ApiKey.issue(user=user)
    revoked.revoke()
    form = {"lsturl": "https://lstu.fr"}

    with time_machine.travel(now + timedelta(minutes=59), tick=False):
        before = Client().get("/s/stats", **bearer(expiring_token))
    with time_machine.travel(now + timedelta(hours=1), tick=False):
        expired = Client().post("/s/a", form, **bearer(expiring_token))
        refused = Client().post("/s/a", form, **bearer(revoked_token))

    assert before.status_code == status.HTTP_200_OK
    assert_shortener_error(expired, 401, messages.TOKEN_INVALID)
    assert (expired.content, expired["WWW-Authenticate"]) == (refused.content, refused["WWW-Authenticate"])
    assert not ShortLink.objects.exists()
