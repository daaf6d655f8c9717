"""GET /accounts/@{username}: the `pastes` array is paged (page, per_page, pastes_count)."""

from datetime import UTC, datetime, timedelta

import pytest
from rest_framework import status

from pastes.models import Paste
from pastes.serializers import ACCOUNT_MAX_PER_PAGE, ACCOUNT_PER_PAGE
from tests.pastes.asserts import assert_pastes_error
from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db

URL = "/pastes/accounts/@alice"
# IdefaSoft's User object, plus pastes_count.
USER_KEYS = {
    "username",
    "avatar",
    "bio",
    "badges",
    "created_at",
    "last_login",
    "max_paste_chars",
    "max_attachment_bytes",
    "attachment_bytes",
    "pastes",
    "pastes_count",
}


@pytest.fixture
def many_pastes(user) -> list[Paste]:
    """120 pastes, newest last, in pairs made at the same instant; every fourth is private."""
    base = datetime(2024, 1, 1, tzinfo=UTC)
    return [
        PasteFactory(
            owner=user,
            name=f"paste-{n:03}",
            created_at=base + timedelta(minutes=n // 2),
            exposure=Paste.Exposure.PRIVATE if n % 4 == 0 else Paste.Exposure.PUBLIC,
        )
        for n in range(120)
    ]


def newest_first(pastes: list[Paste]) -> list[str]:
    return [paste.id for paste in sorted(pastes, key=lambda paste: (paste.created_at, paste.id), reverse=True)]


def every_page(client, per_page: int) -> list[str]:
    ids, page = [], 1
    while body := client.get(URL, {"page": page, "per_page": per_page}).json()["pastes"]:
        ids += [paste["id"] for paste in body]
        page += 1
    return ids


def test_the_first_page_keeps_the_user_object_with_the_newest_pastes(owner_client, many_pastes):
    response = owner_client.get(URL)

    assert response.status_code == status.HTTP_200_OK
    body = response.json()
    assert set(body) == USER_KEYS
    assert [paste["id"] for paste in body["pastes"]] == newest_first(many_pastes)[:ACCOUNT_PER_PAGE]
    assert body["pastes_count"] == 120


@pytest.mark.parametrize("per_page", [1, 7, ACCOUNT_MAX_PER_PAGE])
def test_every_page_in_turn_lists_every_paste_once_newest_first(owner_client, many_pastes, per_page):
    assert every_page(owner_client, per_page) == newest_first(many_pastes)


@pytest.mark.parametrize("who", ["other", "anonymous"])
def test_others_page_through_the_public_pastes_only(clients, many_pastes, who):
    public = [paste for paste in many_pastes if paste.exposure == Paste.Exposure.PUBLIC]

    assert every_page(clients[who], 25) == newest_first(public)
    assert clients[who].get(URL).json()["pastes_count"] == len(public) == 90


def test_the_last_page_and_past_it(owner_client, many_pastes):
    last = owner_client.get(URL, {"page": 3}).json()
    past = owner_client.get(URL, {"page": 4})

    assert [paste["id"] for paste in last["pastes"]] == newest_first(many_pastes)[100:]
    assert past.status_code == status.HTTP_200_OK
    assert past.json()["pastes"] == []
    assert past.json()["pastes_count"] == 120


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"page": "0"}, "page must be a whole number from 1."),
        ({"page": "-2"}, "page must be a whole number from 1."),
        ({"page": "two"}, "page must be a whole number from 1."),
        ({"page": str(10**40)}, "page must be a whole number from 1 to 1000000."),
        ({"per_page": "0"}, f"per_page must be a whole number from 1 to {ACCOUNT_MAX_PER_PAGE}."),
        (
            {"per_page": str(ACCOUNT_MAX_PER_PAGE + 1)},
            f"per_page must be a whole number from 1 to {ACCOUNT_MAX_PER_PAGE}.",
        ),
        ({"per_page": "ten"}, f"per_page must be a whole number from 1 to {ACCOUNT_MAX_PER_PAGE}."),
        # Empty is not a whole number either (it was served the default page).
        ({"page": ""}, "page must be a whole number from 1."),
        ({"per_page": ""}, f"per_page must be a whole number from 1 to {ACCOUNT_MAX_PER_PAGE}."),
    ],
)
@pytest.mark.parametrize("who", ["owner", "other", "anonymous"])
def test_unusable_page_values_get_the_pastes_error_shape(clients, user, params, message, who):
    assert_pastes_error(clients[who].get(URL, params), 400, message)


def test_the_count_leaves_out_expired_pastes(owner_client, user, many_pastes):
    Paste.objects.filter(pk__in=[paste.pk for paste in many_pastes[:5]]).update(
        expiration=Paste.Expiration.ONE_HOUR, expires_at=datetime(2024, 1, 2, tzinfo=UTC)
    )

    body = owner_client.get(URL, {"per_page": 100, "page": 2}).json()

    assert body["pastes_count"] == 115
    assert len(body["pastes"]) == 15
