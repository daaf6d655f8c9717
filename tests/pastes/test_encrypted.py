"""End-to-end encrypted pastes through the API (issue 23): the server stores and serves an envelope it cannot read."""

import json

import pytest
from django.test import Client

from pastes.encryption import ENVELOPE_MESSAGE
from pastes.models import Paste, PasteProfile
from tests.pastes.asserts import assert_pastes_error, quota_exceeded
from tests.pastes.e2e import decrypt, encrypt
from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db

TEXT = "SECRET=hunter2\nnaïve line\n"
PASTE_GONE = "Paste not found (it may have expired, been burned after reading, or never existed)."


def create(client, **fields):
    return client.post("/pastes/create", {"name": "secret", **fields}, format="json")


def test_the_owner_creates_an_encrypted_paste_that_a_script_decrypts(owner_client, user):
    content, key = encrypt(TEXT)

    response = create(owner_client, content=content, encrypted=True)

    assert response.status_code == 200
    body = response.json()
    assert (body["encrypted"], body["content"]) == (True, content)
    paste = Paste.objects.get()
    assert (paste.owner, paste.encrypted, paste.content) == (user, True, content)
    assert TEXT not in paste.content and key not in paste.content
    assert decrypt(paste.content, key) == TEXT


@pytest.mark.parametrize("who", ["owner", "other", "anonymous"])
def test_every_reader_gets_the_envelope_as_stored(clients, user, who):
    content, key = encrypt(TEXT)
    paste = PasteFactory(owner=user, content=content, encrypted=True)

    body = clients[who].get(f"/pastes/paste/@{paste.id}").json()
    raw = clients[who].get(f"/pastes/paste/@{paste.id}/raw")

    assert (body["encrypted"], body["content"]) == (True, content)
    assert decrypt(raw.content.decode(), key) == TEXT


def test_anonymous_cannot_create_an_encrypted_paste(anon_client):
    content, _ = encrypt(TEXT)

    response = create(anon_client, content=content, encrypted=True)

    assert_pastes_error(response, 401, "An API key is required: send it as the Authorization header.")
    assert not Paste.objects.exists()


def _envelope(**changes) -> str:
    content, _ = encrypt(TEXT)
    envelope = json.loads(content) | changes
    return json.dumps({key: value for key, value in envelope.items() if value is not None})


@pytest.mark.parametrize(
    "content",
    [
        TEXT,  # plain text marked encrypted
        "[1, 2]",
        _envelope(v=2),
        _envelope(v=True),
        _envelope(alg="AES-CBC"),
        _envelope(iv="AAAA"),  # 3 bytes
        _envelope(iv="not base64!"),
        _envelope(ct="AAAA"),  # shorter than the tag
        _envelope(ct="YWJj=="),  # padded
        _envelope(ct=None),
        _envelope(extra="x"),
    ],
)
def test_an_encrypted_paste_must_hold_an_envelope(owner_client, content):
    response = create(owner_client, content=content, encrypted=True)

    assert_pastes_error(response, 400, ENVELOPE_MESSAGE)
    assert not Paste.objects.exists()


def test_encrypted_must_be_a_boolean(owner_client):
    content, _ = encrypt(TEXT)

    response = create(owner_client, content=content, encrypted="true")

    assert_pastes_error(response, 400, "encrypted must be true or false.")


def test_an_envelope_without_the_flag_is_an_ordinary_paste(owner_client):
    content, _ = encrypt(TEXT)

    body = create(owner_client, content=content).json()

    assert body["encrypted"] is False
    assert Paste.objects.get().encrypted is False


def test_the_owner_edits_the_envelope_and_others_may_not(owner_client, other_client, user):
    old, _ = encrypt(TEXT)
    paste = PasteFactory(owner=user, content=old, encrypted=True)
    new, _ = encrypt("new text")
    edit = {"id": paste.id, "content": new}

    assert_pastes_error(
        other_client.patch(f"/pastes/edit/{paste.id}", edit, format="json"),
        403,
        "Only the owner of this paste may change or delete it.",
    )
    assert owner_client.patch(f"/pastes/edit/{paste.id}", edit, format="json").status_code == 200
    paste.refresh_from_db()
    assert paste.content == new


def test_an_edit_cannot_leave_plain_text_marked_encrypted(owner_client, user):
    content, _ = encrypt(TEXT)
    plain = PasteFactory(owner=user, content="plain")
    sealed = PasteFactory(owner=user, content=content, encrypted=True)

    marking = owner_client.patch(f"/pastes/edit/{plain.id}", {"id": plain.id, "encrypted": True}, format="json")
    replacing = owner_client.patch(f"/pastes/edit/{sealed.id}", {"id": sealed.id, "content": "oops"}, format="json")

    assert_pastes_error(marking, 400, ENVELOPE_MESSAGE)
    assert_pastes_error(replacing, 400, ENVELOPE_MESSAGE)
    plain.refresh_from_db()
    sealed.refresh_from_db()
    assert (plain.encrypted, plain.content, sealed.content) == (False, "plain", content)
    # Turning encryption off with a plain text in its place is a plain edit.
    response = owner_client.patch(
        f"/pastes/edit/{sealed.id}", {"id": sealed.id, "content": "now public", "encrypted": False}, format="json"
    )
    assert response.json()["encrypted"] is False


def test_the_quota_counts_the_stored_envelope(owner_client, user):
    content, _ = encrypt("x" * 100)
    PasteProfile.objects.create(user=user, max_paste_chars=len(content) - 1)

    response = create(owner_client, content=content, encrypted=True)

    assert_pastes_error(response, 413, quota_exceeded(limit=len(content) - 1, needed=len(content)))


def test_an_encrypted_paste_burns_and_counts_like_any_other(owner_client, other_client, anon_client, user):
    content, key = encrypt(TEXT)
    burning = PasteFactory(owner=user, content=content, encrypted=True, burn_after_read=True)
    counted = PasteFactory(owner=user, content=content, encrypted=True)

    assert decrypt(anon_client.get(f"/pastes/paste/@{burning.id}").json()["content"], key) == TEXT
    assert_pastes_error(anon_client.get(f"/pastes/paste/@{burning.id}"), 404, PASTE_GONE)
    other_client.get(f"/pastes/paste/@{counted.id}")
    assert other_client.get(f"/pastes/paste/@{counted.id}").json()["views"] == 2


def test_curl_creates_an_encrypted_paste_from_the_query(owner_key):
    content, key = encrypt(TEXT)

    response = Client(HTTP_AUTHORIZATION=owner_key).post(
        "/pastes/create?name=notes&encrypted=true", content.encode(), content_type="text/plain"
    )

    assert response.json()["encrypted"] is True
    assert decrypt(Paste.objects.get().content, key) == TEXT
