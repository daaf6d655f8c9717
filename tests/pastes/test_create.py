import re
from datetime import UTC, datetime
from unittest import mock

import pytest
import time_machine
from rest_framework import status

from pastes.models import Paste
from tests.pastes.asserts import assert_pastes_error, quota_exceeded
from tests.pastes.factories import PasteFactory, PasteProfileFactory

pytestmark = pytest.mark.django_db

URL = "/pastes/create"
NAME_MESSAGE = "The name must be between 2 and 100 characters long"


def create(client, **body):
    return client.post(URL, body, format="json")


def test_create_returns_the_paste_object_with_defaults(owner_client, user):
    with time_machine.travel(datetime(2024, 5, 15, 18, 56, 1, 123456, tzinfo=UTC), tick=False):
        response = create(owner_client, name="My paste", content="print('hi')")

    assert response.status_code == status.HTTP_200_OK
    body = response.json()
    assert body == {
        "id": body["id"],
        "name": "My paste",
        "content": "print('hi')",
        "created_at": "15/05/2024, 18:56:01",
        "expiration": "Never",
        "exposure": "public",
        "views": 0,
        "burn_after_read": False,
        "encrypted": False,
        "password_protected": False,
        "discussion": False,
        # Issue 47: a one-file paste is also its one file, named after the paste (no syntax given, none guessed).
        "files": [{"filename": "my-paste.txt", "content": "print('hi')", "syntax": ""}],
        "attachments": [],
    }
    paste = Paste.objects.get()
    assert paste.id == body["id"]
    assert paste.owner == user
    assert paste.expires_at is None


def test_create_gives_a_twelve_character_alphanumeric_id(owner_client):
    response = create(owner_client, name="ab", content="x")

    assert re.fullmatch(r"[A-Za-z0-9]{12}", response.json()["id"])


def test_create_stores_every_given_field(owner_client):
    response = create(
        owner_client, name="Secret", content="s3cr3t", expiration="1 day", exposure="private", burn_after_read=True
    )

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["expiration"] == "1 day"
    assert response.json()["exposure"] == "private"
    assert response.json()["burn_after_read"] is True
    paste = Paste.objects.get()
    assert (paste.expiration, paste.exposure, paste.burn_after_read) == (
        Paste.Expiration.ONE_DAY,
        Paste.Exposure.PRIVATE,
        True,
    )


@pytest.mark.parametrize("exposure", ["public", "unlisted", "private"])
def test_create_accepts_each_exposure(owner_client, exposure):
    response = create(owner_client, name="ab", content="x", exposure=exposure)

    assert response.status_code == status.HTTP_200_OK
    assert Paste.objects.get().exposure == exposure


def test_create_sets_expires_at_from_the_label(owner_client):
    start = datetime(2024, 1, 1, tzinfo=UTC)
    with time_machine.travel(start, tick=False):
        create(owner_client, name="ab", content="x", expiration="10 minutes")

    assert Paste.objects.get().expires_at == datetime(2024, 1, 1, 0, 10, tzinfo=UTC)


def test_create_keeps_surrounding_whitespace_of_content(owner_client):
    create(owner_client, name="ab", content="  indented\n")

    assert Paste.objects.get().content == "  indented\n"


def test_create_trims_the_name(owner_client):
    create(owner_client, name="  padded  ", content="x")

    assert Paste.objects.get().name == "padded"


def test_create_accepts_unicode_content(owner_client):
    response = create(owner_client, name="émoji", content="héllo 😀 世界")

    assert response.json()["content"] == "héllo 😀 世界"
    assert Paste.objects.get().content == "héllo 😀 世界"


# The maximum counts the name as sent (the schema's maxLength), the minimum what is left once trimmed.
@pytest.mark.parametrize("name", ["a", "", "   ", " a ", "x" * 101, " " + "x" * 100])
def test_create_rejects_name_outside_two_to_hundred_chars(owner_client, name):
    response = create(owner_client, name=name, content="x")

    assert_pastes_error(response, 400, NAME_MESSAGE)
    assert not Paste.objects.exists()


@pytest.mark.parametrize("name", ["ab", "x" * 100])
def test_create_accepts_name_at_the_length_bounds(owner_client, name):
    response = create(owner_client, name=name, content="x")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["name"] == name
    assert Paste.objects.get().name == name


def test_create_rejects_empty_content(owner_client):
    response = create(owner_client, name="ab", content="")

    assert_pastes_error(response, 400, "content must not be empty.")


@pytest.mark.parametrize("missing", ["name", "content"])
def test_create_rejects_missing_required_field(owner_client, missing):
    body = {"name": "ab", "content": "x"}
    del body[missing]

    response = owner_client.post(URL, body, format="json")

    assert_pastes_error(response, 400, f"{missing} is required.")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("name", 12, "name must be a string."),
        ("content", ["a"], "content must be a string."),
        ("content", None, "content may not be null."),
        ("expiration", 10, "expiration must be a string."),
        ("exposure", None, "exposure may not be null."),
        ("burn_after_read", "true", "burn_after_read must be true or false."),
        ("burn_after_read", 1, "burn_after_read must be true or false."),
    ],
)
def test_create_rejects_wrong_types(owner_client, field, value, message):
    body = {"name": "ab", "content": "x", field: value}

    response = owner_client.post(URL, body, format="json")

    assert_pastes_error(response, 400, message)
    assert not Paste.objects.exists()


def test_create_rejects_unknown_expiration_listing_the_allowed_values(owner_client):
    response = create(owner_client, name="ab", content="x", expiration="3 days")

    assert_pastes_error(
        response,
        400,
        "expiration must be one of: 10 minutes, 1 hour, 1 day, 1 week, 2 weeks, 1 month, 6 months, 1 year, Never.",
    )


def test_create_rejects_unknown_exposure_listing_the_allowed_values(owner_client):
    response = create(owner_client, name="ab", content="x", exposure="secret")

    assert_pastes_error(response, 400, "exposure must be one of: public, unlisted, private.")


def test_create_rejects_unknown_field_names(owner_client):
    response = create(owner_client, name="ab", content="x", exposur="private")

    assert_pastes_error(
        response,
        400,
        "Unknown field(s): exposur. Allowed fields: name, content, files, expiration, exposure, burn_after_read, "
        "syntax, encrypted, password, discussion.",
    )


def test_create_rejects_nul_characters(owner_client):
    response = create(owner_client, name="ab", content="a\x00b")

    assert_pastes_error(response, 400, "content must not contain NUL characters.")


def test_create_rejects_unpaired_surrogates(owner_client):
    response = owner_client.post(URL, '{"name": "ab", "content": "\\ud800"}', content_type="application/json")

    assert_pastes_error(
        response, 400, "JSON parse error - an unpaired surrogate escape (\\ud800-\\udfff) is not valid text."
    )
    assert not Paste.objects.exists()


def test_create_without_key_is_401(anon_client):
    response = create(anon_client, name="ab", content="x")

    assert_pastes_error(response, 401, "An API key is required: send it as the Authorization header.")
    assert not Paste.objects.exists()


def test_create_accepts_a_key_after_bearer(anon_client, owner_key, user):
    response = anon_client.post(
        URL, {"name": "ab", "content": "x"}, format="json", HTTP_AUTHORIZATION=f"Bearer {owner_key}"
    )

    assert response.status_code == status.HTTP_200_OK
    assert Paste.objects.get(pk=response.json()["id"]).owner == user


def test_create_counts_content_length_in_characters_against_the_quota(owner_client, user):
    PasteProfileFactory(user=user, max_paste_chars=3)

    response = create(owner_client, name="ab", content="😀😀😀")

    assert response.status_code == status.HTTP_200_OK
    assert Paste.objects.get().content == "😀😀😀"
    assert Paste.objects.filter(owner=user).total_chars() == 3


def test_create_over_quota_is_413_naming_the_limit(owner_client, user):
    PasteProfileFactory(user=user, max_paste_chars=10)
    PasteFactory(owner=user, content="x" * 6)

    response = create(owner_client, name="ab", content="y" * 5)

    assert_pastes_error(
        response,
        413,
        quota_exceeded(limit=10, needed=11),
    )
    assert Paste.objects.count() == 1


def test_create_exactly_filling_the_quota_is_accepted(owner_client, user):
    PasteProfileFactory(user=user, max_paste_chars=10)
    PasteFactory(owner=user, content="x" * 6)

    response = create(owner_client, name="ab", content="y" * 4)

    assert response.status_code == status.HTTP_200_OK
    assert Paste.objects.filter(owner=user).total_chars() == 10


def test_create_quota_ignores_other_users_pastes(owner_client, user, other_user):
    PasteProfileFactory(user=user, max_paste_chars=10)
    PasteFactory(owner=other_user, content="x" * 50)

    response = create(owner_client, name="ab", content="y" * 10)

    assert response.status_code == status.HTTP_200_OK
    assert Paste.objects.get(pk=response.json()["id"]).owner == user
    assert Paste.objects.filter(owner=user).total_chars() == 10


def test_create_quota_frees_expired_pastes(owner_client, user):
    PasteProfileFactory(user=user, max_paste_chars=10)
    with time_machine.travel(datetime(2024, 1, 1, tzinfo=UTC), tick=False):
        create(owner_client, name="old", content="x" * 10, expiration="1 hour")

    with time_machine.travel(datetime(2024, 1, 1, 2, tzinfo=UTC), tick=False):
        response = create(owner_client, name="new", content="y" * 10)

    assert response.status_code == status.HTTP_200_OK
    assert list(Paste.objects.values_list("name", flat=True)) == ["new"]


def test_create_uses_the_default_quota_setting(owner_client, settings):
    settings.PASTES_DEFAULT_MAX_CHARS = 5

    response = create(owner_client, name="ab", content="x" * 6)

    assert_pastes_error(
        response,
        413,
        quota_exceeded(limit=5, needed=6),
    )


def test_create_accepts_a_million_character_paste(owner_client):
    response = create(owner_client, name="big", content="x" * 1_000_000)

    assert response.status_code == status.HTTP_200_OK
    assert len(Paste.objects.get().content) == 1_000_000


def test_create_retries_when_the_random_id_is_taken(owner_client, user):
    PasteFactory(owner=user, id="AAAAAAAAAAAA")
    ids = iter(["AAAAAAAAAAAA", "BBBBBBBBBBBB"])

    with mock.patch("pastes.services.generate_paste_id", side_effect=lambda: next(ids)):
        response = create(owner_client, name="ab", content="x")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["id"] == "BBBBBBBBBBBB"
    assert Paste.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_create_retries_a_taken_id_in_a_new_transaction_and_keeps_the_quota(owner_client, user):
    PasteProfileFactory(user=user, max_paste_chars=3)
    PasteFactory(owner=user, id="AAAAAAAAAAAA", content="x")
    ids = iter(["AAAAAAAAAAAA", "BBBBBBBBBBBB"])

    with mock.patch("pastes.services.generate_paste_id", side_effect=lambda: next(ids)):
        response = create(owner_client, name="ab", content="yy")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["id"] == "BBBBBBBBBBBB"
    assert Paste.objects.filter(owner=user).total_chars() == 3


def test_create_takes_an_optional_syntax_for_the_html_page(owner_client):
    response = owner_client.post(
        "/pastes/create", {"name": "code", "content": "x = 1", "syntax": "python"}, format="json"
    )

    assert response.status_code == status.HTTP_200_OK
    assert "syntax" not in response.json()  # the Paste object stays as the spec has it
    assert Paste.objects.get(pk=response.json()["id"]).syntax == "python"


@pytest.mark.parametrize(
    ("syntax", "message"),
    [
        ("klingon", "Unknown syntax klingon: use a Pygments language name such as python, json or bash."),
        (3, "syntax must be a string."),
        (None, "syntax may not be null."),
    ],
)
def test_create_refuses_an_unknown_syntax(owner_client, syntax, message):
    response = owner_client.post(
        "/pastes/create", {"name": "code", "content": "x = 1", "syntax": syntax}, format="json"
    )

    assert_pastes_error(response, 400, message)
    assert not Paste.objects.exists()
