from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from rest_framework import status

from pastes.models import Paste, PasteProfile
from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db


def test_admin_lists_and_searches_pastes_by_owner(admin_client, user, other_user):
    PasteFactory(owner=user, name="alice-paste")
    PasteFactory(owner=other_user, name="bob-paste")

    response = admin_client.get("/admin/pastes/paste/", {"q": "bob"})

    assert response.status_code == status.HTTP_200_OK
    assert b"bob-paste" in response.content
    assert b"alice-paste" not in response.content


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("recipe", {"garden recipe", "Recipe box"}),
        ("BOX", {"Recipe box"}),
        ("bob", {"bob-notes"}),
        ("BOB", {"bob-notes"}),
        ("recipe alice", {"garden recipe", "Recipe box"}),
        ("recipe bob", set()),
        ('"garden recipe"', {"garden recipe"}),
        ("nothing", set()),
    ],
)
def test_admin_search_matches_ids_names_and_usernames_as_django_would(admin_client, user, other_user, query, found):
    PasteFactory(owner=user, name="garden recipe")
    PasteFactory(owner=user, name="Recipe box")
    PasteFactory(owner=other_user, name="bob-notes")

    response = admin_client.get("/admin/pastes/paste/", {"q": query})

    assert response.status_code == status.HTTP_200_OK
    assert {paste.name for paste in response.context["cl"].result_list} == found


def test_admin_search_finds_a_paste_by_its_id(admin_client, user):
    paste, _ = PasteFactory(owner=user, name="one"), PasteFactory(owner=user, name="two")

    response = admin_client.get("/admin/pastes/paste/", {"q": paste.pk})

    assert [found.pk for found in response.context["cl"].result_list] == [paste.pk]


def test_admin_filters_pastes_by_exposure_and_burn(admin_client, user):
    PasteFactory(owner=user, name="open-one", exposure="public")
    PasteFactory(owner=user, name="hidden-one", exposure="private", burn_after_read=True)

    response = admin_client.get("/admin/pastes/paste/", {"exposure__exact": "private", "burn_after_read__exact": "1"})

    assert b"hidden-one" in response.content
    assert b"open-one" not in response.content


def test_admin_shows_paste_content(admin_client, user):
    paste = PasteFactory(owner=user, content="readable secret text")

    response = admin_client.get(f"/admin/pastes/paste/{paste.pk}/change/")

    assert response.status_code == status.HTTP_200_OK
    assert b"readable secret text" in response.content


def test_admin_edits_a_users_quota_and_badges(admin_client, user):
    response = admin_client.post(
        "/admin/pastes/pasteprofile/add/",
        {
            "user": user.pk,
            "avatar": "",
            "bio": "",
            "badges": '["staff"]',
            "max_paste_chars": "500",
            "max_attachment_bytes": "1000",
        },
    )

    assert response.status_code == status.HTTP_302_FOUND
    profile = PasteProfile.objects.get(user=user)
    assert (profile.max_paste_chars, profile.badges) == (500, ["staff"])


def test_admin_adding_a_paste_sets_its_deadline_from_the_expiration(admin_client, user):
    start = datetime(2024, 1, 1, tzinfo=UTC)
    with time_machine.travel(start, tick=False):
        response = admin_client.post(
            "/admin/pastes/paste/add/",
            {"owner": user.pk, "name": "by admin", "content": "x", "exposure": "public", "expiration": "1D"},
        )

    assert response.status_code == status.HTTP_302_FOUND
    paste = Paste.objects.get()
    assert paste.expires_at == start + timedelta(days=1)
    assert len(paste.id) == 12


def test_admin_changing_the_expiration_restarts_the_deadline(admin_client, user):
    paste = PasteFactory(owner=user, name="kept")
    changed_at = datetime(2024, 2, 1, tzinfo=UTC)
    with time_machine.travel(changed_at, tick=False):
        admin_client.post(
            f"/admin/pastes/paste/{paste.pk}/change/",
            {"owner": user.pk, "name": "kept", "content": paste.content, "exposure": "public", "expiration": "1H"},
        )

    paste.refresh_from_db()
    assert (paste.expiration, paste.expires_at) == ("1H", changed_at + timedelta(hours=1))
