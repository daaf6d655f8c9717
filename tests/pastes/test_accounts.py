from datetime import UTC, datetime, timedelta

import pytest
from rest_framework import status

from pastes.models import Paste
from tests.pastes.asserts import assert_pastes_error
from tests.pastes.factories import PasteFactory, PasteProfileFactory

pytestmark = pytest.mark.django_db

URL = "/pastes/accounts/@alice"


def listed_names(response) -> list[str]:
    return [paste["name"] for paste in response.json()["pastes"]]


@pytest.fixture
def pastes_of_every_kind(user):
    base = datetime(2024, 1, 1, tzinfo=UTC)
    for offset, (name, exposure, burn) in enumerate(
        [
            ("public-old", "public", False),
            ("unlisted", "unlisted", False),
            ("private", "private", False),
            ("public-burn", "public", True),
            ("public-new", "public", False),
        ]
    ):
        PasteFactory(
            owner=user, name=name, exposure=exposure, burn_after_read=burn, created_at=base + timedelta(offset)
        )


def test_account_returns_the_user_object_with_defaults(anon_client, user):
    user.date_joined = datetime(2024, 5, 13, 20, 14, 0, 15390, tzinfo=UTC)
    user.save()

    response = anon_client.get(URL)

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {
        "username": "alice",
        "avatar": None,
        "bio": None,
        "badges": [],
        "created_at": "2024-05-13T20:14:00.015390+00:00",
        "last_login": None,
        "max_paste_chars": 1_000_000,
        "max_attachment_bytes": 100 * 1024 * 1024,
        "attachment_bytes": 0,
        "pastes": [],
        "pastes_count": 0,
    }


def test_account_shows_the_profile(anon_client, user):
    PasteProfileFactory(
        user=user, avatar="https://example.com/a.png", bio="Hi", badges=["staff", "early"], max_paste_chars=42
    )
    user.last_login = datetime(2024, 6, 1, 8, 0, tzinfo=UTC)
    user.save()

    body = anon_client.get(URL).json()

    assert body["avatar"] == "https://example.com/a.png"
    assert body["bio"] == "Hi"
    assert body["badges"] == ["staff", "early"]
    assert body["max_paste_chars"] == 42
    assert body["last_login"] == "2024-06-01T08:00:00.000000+00:00"


def test_account_pastes_are_paste_objects(anon_client, paste):
    body = anon_client.get(URL).json()

    assert body["pastes"] == [
        {
            "id": paste.id,
            "name": "hello",
            "content": "Hello, world!",
            "created_at": paste.created_at.strftime("%d/%m/%Y, %H:%M:%S"),
            "expiration": "Never",
            "exposure": "public",
            "views": 0,
            "burn_after_read": False,
            "encrypted": False,
            "password_protected": False,
            "discussion": False,
            "files": [{"filename": "hello.txt", "content": "Hello, world!", "syntax": ""}],
            "attachments": [],
        }
    ]


@pytest.mark.usefixtures("pastes_of_every_kind")
def test_owner_sees_all_their_pastes_newest_first(owner_client):
    response = owner_client.get(URL)

    assert listed_names(response) == ["public-new", "public-burn", "private", "unlisted", "public-old"]


@pytest.mark.usefixtures("pastes_of_every_kind")
@pytest.mark.parametrize("who", ["other", "anonymous"])
def test_others_see_only_public_pastes_that_do_not_burn(clients, who):
    response = clients[who].get(URL)

    assert listed_names(response) == ["public-new", "public-old"]


def test_account_listing_does_not_count_views(anon_client, paste):
    anon_client.get(URL)

    paste.refresh_from_db()
    assert paste.views == 0


def test_account_hides_expired_pastes(owner_client, user):
    PasteFactory(
        owner=user, name="gone", expiration=Paste.Expiration.ONE_HOUR, expires_at=datetime(2000, 1, 1, tzinfo=UTC)
    )

    assert listed_names(owner_client.get(URL)) == []


def test_unknown_user_is_404(anon_client):
    response = anon_client.get("/pastes/accounts/@nobody")

    assert_pastes_error(response, 404, "User not found.")


def test_deactivated_user_is_404(anon_client, user):
    user.is_active = False
    user.save()

    response = anon_client.get(URL)

    assert_pastes_error(response, 404, "User not found.")


def test_account_with_invalid_key_is_401(anon_client, user):
    response = anon_client.get(URL, HTTP_AUTHORIZATION="wrong")

    assert_pastes_error(response, 401, "Invalid or revoked API key.")


def test_account_query_count_does_not_grow_with_pastes(anon_client, user, django_assert_max_num_queries):
    PasteFactory.create_batch(20, owner=user)

    # The user, the count of their pastes, the page, the page's attachments (one query for all),
    # and the bytes the user's attachments hold.
    with django_assert_max_num_queries(5):
        response = anon_client.get(URL)

    assert len(response.json()["pastes"]) == 20
