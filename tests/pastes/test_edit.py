from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from rest_framework import status

from pastes.errors import PasteNotFound
from pastes.models import Paste
from tests.pastes.asserts import assert_pastes_error, quota_exceeded
from tests.pastes.factories import PasteFactory, PasteProfileFactory

pytestmark = pytest.mark.django_db

EXPIRATIONS = "10 minutes, 1 hour, 1 day, 1 week, 2 weeks, 1 month, 6 months, 1 year, Never"


def edit(client, paste_id: str, **body):
    return client.patch(f"/pastes/edit/{paste_id}", body, format="json")


def test_edit_changes_only_the_given_fields(owner_client, paste):
    response = edit(owner_client, paste.id, id=paste.id, name="renamed")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["name"] == "renamed"
    assert response.json()["content"] == "Hello, world!"
    paste.refresh_from_db()
    assert (paste.name, paste.content, paste.exposure) == ("renamed", "Hello, world!", "public")


def test_edit_changes_every_field(owner_client, paste):
    response = edit(
        owner_client,
        paste.id,
        id=paste.id,
        name="new",
        content="new content",
        expiration="1 week",
        exposure="unlisted",
        burn_after_read=True,
    )

    assert response.status_code == status.HTTP_200_OK
    body = response.json()
    assert (body["name"], body["content"], body["expiration"], body["exposure"], body["burn_after_read"]) == (
        "new",
        "new content",
        "1 week",
        "unlisted",
        True,
    )
    paste.refresh_from_db()
    assert (paste.expiration, paste.exposure, paste.burn_after_read) == ("1W", "unlisted", True)


def test_edit_keeps_views_and_created_at(owner_client, paste):
    Paste.objects.filter(pk=paste.pk).update(views=7)
    before = Paste.objects.get(pk=paste.pk).created_at

    response = edit(owner_client, paste.id, id=paste.id, content="changed")

    assert response.json()["views"] == 7
    assert Paste.objects.get(pk=paste.pk).created_at == before


def test_edit_new_expiration_runs_from_the_edit(owner_client, user):
    with time_machine.travel(datetime(2024, 1, 1, tzinfo=UTC), tick=False):
        paste = PasteFactory(owner=user)
    edited_at = datetime(2024, 3, 1, 12, tzinfo=UTC)

    with time_machine.travel(edited_at, tick=False):
        edit(owner_client, paste.id, id=paste.id, expiration="1 day")

    paste.refresh_from_db()
    assert paste.expires_at == edited_at + timedelta(days=1)


def test_edit_to_never_clears_the_deadline(owner_client, user):
    paste = PasteFactory(owner=user, expiration=Paste.Expiration.ONE_DAY, expires_at=datetime(2999, 1, 1, tzinfo=UTC))

    edit(owner_client, paste.id, id=paste.id, expiration="Never")

    paste.refresh_from_db()
    assert (paste.expiration, paste.expires_at) == ("N", None)


def test_edit_without_id_in_body_is_400(owner_client, paste):
    response = edit(owner_client, paste.id, name="renamed")

    assert_pastes_error(response, 400, "id is required.")


def test_edit_with_a_different_id_in_body_is_400(owner_client, paste):
    response = edit(owner_client, paste.id, id="XXXXXXXXXXXX", name="renamed")

    assert_pastes_error(response, 400, "The id in the body (XXXXXXXXXXXX) must equal the paste id in the path.")
    paste.refresh_from_db()
    assert paste.name == "hello"


def test_edit_rejects_short_name(owner_client, paste):
    response = edit(owner_client, paste.id, id=paste.id, name="x")

    assert_pastes_error(response, 400, "The name must be between 2 and 100 characters long")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("content", "", "content must not be empty."),
        ("content", 5, "content must be a string."),
        ("expiration", "forever", f"expiration must be one of: {EXPIRATIONS}."),
        ("exposure", "hidden", "exposure must be one of: public, unlisted, private."),
        ("burn_after_read", "no", "burn_after_read must be true or false."),
    ],
)
def test_edit_rejects_bad_values_and_changes_nothing(owner_client, paste, field, value, message):
    response = edit(owner_client, paste.id, id=paste.id, name="renamed", **{field: value})

    assert_pastes_error(response, 400, message)
    paste.refresh_from_db()
    assert paste.name == "hello"


def test_edit_rejects_unknown_fields(owner_client, paste):
    response = edit(owner_client, paste.id, id=paste.id, views=100)

    assert_pastes_error(
        response,
        400,
        "Unknown field(s): views. Allowed fields: name, content, files, expiration, exposure, burn_after_read, syntax, "
        "encrypted, password, discussion, id.",
    )


@pytest.mark.parametrize("exposure", ["public", "unlisted"])
def test_edit_of_another_users_visible_paste_is_403(other_client, user, exposure):
    paste = PasteFactory(owner=user, exposure=exposure, name="orig")

    response = edit(other_client, paste.id, id=paste.id, name="hacked")

    assert_pastes_error(response, 403, "Only the owner of this paste may change or delete it.")
    paste.refresh_from_db()
    assert paste.name == "orig"


def test_edit_of_another_users_private_paste_is_404(other_client, user):
    paste = PasteFactory(owner=user, exposure="private", name="orig")

    response = edit(other_client, paste.id, id=paste.id, name="hacked")

    assert_pastes_error(response, 404, PasteNotFound.message)
    paste.refresh_from_db()
    assert paste.name == "orig"


@pytest.mark.parametrize("exposure", ["public", "unlisted", "private"])
def test_edit_without_key_is_401(anon_client, user, exposure):
    paste = PasteFactory(owner=user, exposure=exposure, name="orig")

    response = edit(anon_client, paste.id, id=paste.id, name="hacked")

    assert_pastes_error(response, 401, "An API key is required: send it as the Authorization header.")
    paste.refresh_from_db()
    assert paste.name == "orig"


def test_edit_of_unknown_paste_is_404(owner_client):
    response = edit(owner_client, "AAAAAAAAAAAA", id="AAAAAAAAAAAA", name="x1")

    assert_pastes_error(response, 404, PasteNotFound.message)


def test_edit_of_expired_paste_is_404_and_deletes_it(owner_client, user):
    paste = PasteFactory(owner=user, expiration=Paste.Expiration.ONE_HOUR, expires_at=datetime(2000, 1, 1, tzinfo=UTC))

    response = edit(owner_client, paste.id, id=paste.id, name="renamed")

    assert_pastes_error(response, 404, PasteNotFound.message)
    assert not Paste.objects.filter(pk=paste.pk).exists()


def test_edit_content_over_quota_is_413(owner_client, user, paste):
    PasteProfileFactory(user=user, max_paste_chars=20)

    response = edit(owner_client, paste.id, id=paste.id, content="x" * 21)

    # 21 new characters, and the 13 of "Hello, world!" kept as revision 1 (issue 47).
    assert_pastes_error(
        response,
        413,
        quota_exceeded(limit=20, needed=34),
    )
    paste.refresh_from_db()
    assert paste.content == "Hello, world!"


def test_edit_quota_counts_the_new_content_and_the_old_kept_as_a_revision(owner_client, user):
    profile = PasteProfileFactory(user=user, max_paste_chars=34)
    paste = PasteFactory(owner=user, content="x" * 15)

    refused = edit(owner_client, paste.id, id=paste.id, content="y" * 20)

    assert_pastes_error(refused, 413, quota_exceeded(limit=34, needed=35))
    profile.max_paste_chars = 35
    profile.save()
    response = edit(owner_client, paste.id, id=paste.id, content="y" * 20)

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["content"] == "y" * 20
    paste.refresh_from_db()
    assert paste.content == "y" * 20


def test_edit_with_patch_only(owner_client, paste):
    response = owner_client.put(f"/pastes/edit/{paste.id}", {"id": paste.id}, format="json")

    assert_pastes_error(response, 405, 'Method "PUT" not allowed.')


def test_edit_shrinking_content_over_a_lowered_quota_is_413_since_the_old_text_is_kept(owner_client, user):
    # Issue 47: the old text stays as a revision, so shrinking frees nothing; removing revisions
    # or deleting pastes does.
    paste = PasteFactory(owner=user, content="x" * 30)
    PasteProfileFactory(user=user, max_paste_chars=10)

    response = edit(owner_client, paste.id, id=paste.id, content="y" * 20)

    assert_pastes_error(response, 413, quota_exceeded(limit=10, needed=50))
    paste.refresh_from_db()
    assert paste.content == "x" * 30


def test_edit_name_only_is_allowed_when_over_a_lowered_quota(owner_client, user):
    paste = PasteFactory(owner=user, content="x" * 30)
    PasteProfileFactory(user=user, max_paste_chars=10)

    response = edit(owner_client, paste.id, id=paste.id, name="renamed")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["name"] == "renamed"
    paste.refresh_from_db()
    assert (paste.name, paste.content) == ("renamed", "x" * 30)


@pytest.mark.parametrize("exposure", ["public", "unlisted", "private"])
def test_owner_edits_paste_of_every_exposure(owner_client, user, exposure):
    paste = PasteFactory(owner=user, exposure=exposure, name="orig")

    response = edit(owner_client, paste.id, id=paste.id, name="renamed")

    assert response.status_code == status.HTTP_200_OK
    paste.refresh_from_db()
    assert (paste.name, paste.exposure) == ("renamed", exposure)


def test_edit_with_empty_body_is_400(owner_client, paste):
    response = owner_client.patch(f"/pastes/edit/{paste.id}", "", content_type="application/json")

    assert_pastes_error(response, 400, "id is required.")


def test_edit_with_a_numeric_id_is_400(owner_client, paste):
    response = edit(owner_client, paste.id, id=123)

    assert_pastes_error(response, 400, "id must be a string.")


def test_edit_changes_the_syntax_alone(owner_client, paste):
    response = owner_client.patch(f"/pastes/edit/{paste.id}", {"id": paste.id, "syntax": "bash"}, format="json")

    assert response.status_code == status.HTTP_200_OK
    paste.refresh_from_db()
    assert (paste.syntax, paste.content) == ("bash", "Hello, world!")
