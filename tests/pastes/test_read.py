import pytest
from django.db import connection
from rest_framework import status

from pastes.errors import PasteNotFound
from pastes.models import Paste
from tests.pastes.asserts import assert_pastes_error
from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db

VISIBILITY = [
    ("public", "owner", True),
    ("public", "other", True),
    ("public", "anonymous", True),
    ("unlisted", "owner", True),
    ("unlisted", "other", True),
    ("unlisted", "anonymous", True),
    ("private", "owner", True),
    ("private", "other", False),
    ("private", "anonymous", False),
]


def detail_url(paste_id: str) -> str:
    return f"/pastes/paste/@{paste_id}"


def raw_url(paste_id: str) -> str:
    return f"/pastes/paste/@{paste_id}/raw"


@pytest.mark.parametrize(("exposure", "who", "visible"), VISIBILITY)
def test_get_paste_visibility(clients, user, exposure, who, visible):
    paste = PasteFactory(owner=user, exposure=exposure, content="body")

    response = clients[who].get(detail_url(paste.id))

    if visible:
        assert response.status_code == status.HTTP_200_OK
        assert response.json()["id"] == paste.id
        assert response.json()["content"] == "body"
    else:
        assert_pastes_error(response, 404, PasteNotFound.message)


@pytest.mark.parametrize(("exposure", "who", "visible"), VISIBILITY)
def test_get_raw_visibility(clients, user, exposure, who, visible):
    paste = PasteFactory(owner=user, exposure=exposure, content="line 1\nline 2\n")

    response = clients[who].get(raw_url(paste.id))

    if visible:
        assert response.status_code == status.HTTP_200_OK
        assert response["Content-Type"] == "text/plain; charset=utf-8"
        assert response.content.decode() == "line 1\nline 2\n"
    else:
        assert_pastes_error(response, 404, PasteNotFound.message)


def test_get_paste_returns_every_field(anon_client, user):
    paste = PasteFactory(owner=user, name="n1", content="c", expiration=Paste.Expiration.NEVER, views=4)
    Paste.objects.filter(pk=paste.pk).update(created_at="2024-05-15T18:56:01.5+00:00")

    response = anon_client.get(detail_url(paste.id))

    assert response.json() == {
        "id": paste.id,
        "name": "n1",
        "content": "c",
        "created_at": "15/05/2024, 18:56:01",
        "expiration": "Never",
        "exposure": "public",
        "views": 5,
        "burn_after_read": False,
        "encrypted": False,
        "password_protected": False,
        "discussion": False,
        "files": [{"filename": "n1.txt", "content": "c", "syntax": ""}],
        "attachments": [],
    }


def test_get_unknown_paste_is_404(anon_client):
    response = anon_client.get(detail_url("AAAAAAAAAAAA"))

    assert_pastes_error(response, 404, PasteNotFound.message)


def test_get_paste_without_the_at_sign_is_404(anon_client, paste):
    response = anon_client.get(f"/pastes/paste/{paste.id}")

    assert_pastes_error(response, 404, "Not found.")


def test_get_paste_with_an_invalid_key_is_401(anon_client, paste):
    response = anon_client.get(detail_url(paste.id), HTTP_AUTHORIZATION="pst_not-a-real-key")

    assert_pastes_error(response, 401, "Invalid or revoked API key.")


def test_get_paste_with_a_revoked_key_is_401(anon_client, paste, user):
    from pastes.models import ApiKey

    api_key, raw_key = ApiKey.issue(user=user)
    api_key.revoke()

    response = anon_client.get(detail_url(paste.id), HTTP_AUTHORIZATION=raw_key)

    assert_pastes_error(response, 401, "Invalid or revoked API key.")


def test_owner_reaches_private_paste_with_bearer_prefix(anon_client, user, owner_key):
    paste = PasteFactory(owner=user, exposure="private")

    response = anon_client.get(detail_url(paste.id), HTTP_AUTHORIZATION=f"Bearer {owner_key}")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["id"] == paste.id
    assert response.json()["exposure"] == "private"


def test_a_reports_key_does_not_open_pastes(anon_client, user):
    from reports.models import ApiKey as ReportsApiKey

    _, raw_key = ReportsApiKey.issue(user=user)
    paste = PasteFactory(owner=user, exposure="private")

    response = anon_client.get(detail_url(paste.id), HTTP_AUTHORIZATION=raw_key)

    assert_pastes_error(response, 401, "Invalid or revoked API key.")


@pytest.mark.parametrize("who", ["other", "anonymous"])
def test_read_by_non_owner_counts_a_view(clients, paste, who):
    response = clients[who].get(detail_url(paste.id))

    assert response.json()["views"] == 1
    paste.refresh_from_db()
    assert paste.views == 1


def test_raw_read_by_non_owner_counts_a_view(other_client, paste):
    other_client.get(raw_url(paste.id))

    paste.refresh_from_db()
    assert paste.views == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_counting_a_view_keeps_later_commits_durable(anon_client, paste):
    anon_client.get(detail_url(paste.id))

    # The view counter's commit skips the disk flush; the setting must end with its statement.
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone()[0] == "on"
    paste.refresh_from_db()
    assert paste.views == 1


def test_read_by_owner_does_not_count(owner_client, paste):
    response = owner_client.get(detail_url(paste.id))

    assert response.json()["views"] == 0
    paste.refresh_from_db()
    assert paste.views == 0


def test_head_does_not_count(anon_client, paste):
    response = anon_client.head(detail_url(paste.id))

    assert response.status_code == status.HTTP_200_OK
    paste.refresh_from_db()
    assert paste.views == 0


def test_reads_are_not_cacheable(anon_client, paste):
    response = anon_client.get(detail_url(paste.id))

    assert response["Cache-Control"] == "no-store"


@pytest.mark.parametrize("who", ["other", "anonymous"])
def test_burn_after_read_returns_the_paste_once_then_404(clients, user, who):
    paste = PasteFactory(owner=user, burn_after_read=True, content="once")

    first = clients[who].get(detail_url(paste.id))
    second = clients[who].get(detail_url(paste.id))

    assert first.status_code == status.HTTP_200_OK
    assert first.json()["content"] == "once"
    assert first.json()["views"] == 1
    assert_pastes_error(second, 404, PasteNotFound.message)
    assert not Paste.objects.filter(pk=paste.pk).exists()


def test_burn_after_read_via_raw_burns_too(anon_client, user):
    paste = PasteFactory(owner=user, burn_after_read=True, content="once")

    first = anon_client.get(raw_url(paste.id))
    second = anon_client.get(detail_url(paste.id))

    assert first.content == b"once"
    assert_pastes_error(second, 404, PasteNotFound.message)


def test_burn_after_read_is_not_burned_by_the_owner(owner_client, user):
    paste = PasteFactory(owner=user, burn_after_read=True)

    owner_client.get(detail_url(paste.id))
    owner_client.get(raw_url(paste.id))

    assert Paste.objects.filter(pk=paste.pk, views=0).exists()


def test_burn_after_read_is_not_burned_by_head(anon_client, user):
    paste = PasteFactory(owner=user, burn_after_read=True)

    response = anon_client.head(detail_url(paste.id))

    assert response.status_code == status.HTTP_200_OK
    assert Paste.objects.filter(pk=paste.pk).exists()


def test_private_burn_after_read_is_not_burned_by_others(other_client, user):
    paste = PasteFactory(owner=user, burn_after_read=True, exposure="private")

    response = other_client.get(detail_url(paste.id))

    assert_pastes_error(response, 404, PasteNotFound.message)
    assert Paste.objects.filter(pk=paste.pk).exists()
