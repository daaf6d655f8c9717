"""Scope and expiry of interface B's keys (issue 44): a read key reads and writes nothing, an expired key
is refused like a revoked one."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from rest_framework import status
from rest_framework.test import APIClient

from common.permissions import READ_ONLY_KEY
from pastes.models import ApiKey, Paste
from tests.pastes.asserts import assert_pastes_error
from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db


def client_with(raw_key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=raw_key)
    return client


@pytest.fixture
def read_client(user) -> APIClient:
    return client_with(ApiKey.issue(user=user, scope="read")[1])


def test_a_read_key_reads_its_users_private_paste(read_client, user):
    paste = PasteFactory(owner=user, exposure="private", content="mine only")

    detail = read_client.get(f"/pastes/paste/@{paste.id}")
    raw = read_client.get(f"/pastes/paste/@{paste.id}/raw")
    account = read_client.get(f"/pastes/accounts/@{user.username}")

    assert detail.status_code == status.HTTP_200_OK
    assert detail.json()["content"] == "mine only"
    assert raw.content == b"mine only"
    assert [item["id"] for item in account.json()["pastes"]] == [paste.id]


def test_a_read_key_cannot_create_a_paste(read_client):
    response = read_client.post("/pastes/create", {"name": "notes", "content": "hello"}, format="json")
    curl_style = read_client.post("/pastes/create?name=notes", b"hello", content_type="text/plain")

    assert_pastes_error(response, 403, READ_ONLY_KEY)
    assert_pastes_error(curl_style, 403, READ_ONLY_KEY)
    assert not Paste.objects.exists()


def test_a_read_key_cannot_edit_or_delete(read_client, user):
    paste = PasteFactory(owner=user, name="kept", content="as it was")

    edited = read_client.patch(f"/pastes/edit/{paste.id}", {"id": paste.id, "name": "changed"}, format="json")
    deleted = read_client.delete(f"/pastes/delete/{paste.id}")

    assert_pastes_error(edited, 403, READ_ONLY_KEY)
    assert_pastes_error(deleted, 403, READ_ONLY_KEY)
    assert Paste.objects.values_list("name", "content").get() == ("kept", "as it was")


def test_a_write_key_still_writes(user):
    client = client_with(ApiKey.issue(user=user, scope="write")[1])

    response = client.post("/pastes/create", {"name": "notes", "content": "hello"}, format="json")

    assert response.status_code == status.HTTP_200_OK
    assert Paste.objects.get().owner == user


def test_an_expired_key_is_refused_like_a_revoked_one(user):
    now = timezone.now()
    _expiring, expiring_key = ApiKey.issue(user=user, expires_at=now + timedelta(hours=1))
    revoked, revoked_key = ApiKey.issue(user=user)
    revoked.revoke()
    body = {"name": "notes", "content": "hello"}

    with time_machine.travel(now + timedelta(minutes=59), tick=False):
        before = client_with(expiring_key).get(f"/pastes/accounts/@{user.username}")
    with time_machine.travel(now + timedelta(hours=1), tick=False):
        expired = client_with(expiring_key).post("/pastes/create", body, format="json")
        refused = client_with(revoked_key).post("/pastes/create", body, format="json")

    assert before.status_code == status.HTTP_200_OK
    assert_pastes_error(expired, 401, "Invalid or revoked API key.")
    assert (expired.content, expired.get("WWW-Authenticate")) == (refused.content, refused.get("WWW-Authenticate"))
    assert not Paste.objects.exists()
