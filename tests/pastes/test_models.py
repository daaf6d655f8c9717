from datetime import UTC, datetime

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError

from pastes.models import Paste, PasteProfile, generate_paste_id
from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db


def test_generated_ids_differ():
    assert len({generate_paste_id() for _ in range(1000)}) == 1000


@pytest.mark.parametrize(
    "fields",
    [
        {"name": "x"},
        {"content": ""},
        {"exposure": "secret"},
        {"expiration": "3D"},
        {"expiration": Paste.Expiration.ONE_DAY, "expires_at": None},
        {"expiration": Paste.Expiration.NEVER, "expires_at": datetime(2030, 1, 1, tzinfo=UTC)},
        {"id": "short"},
    ],
)
def test_database_refuses_invalid_pastes(user, fields):
    with pytest.raises(IntegrityError):
        PasteFactory(owner=user, **fields)


def test_paste_ids_are_unique(user):
    PasteFactory(owner=user, id="AAAAAAAAAAAA")

    with pytest.raises(IntegrityError):
        Paste.objects.create(owner=user, id="AAAAAAAAAAAA", name="ab", content="x")


def test_profile_default_quota_follows_the_setting(user, settings):
    settings.PASTES_DEFAULT_MAX_CHARS = 1234

    assert PasteProfile.objects.create(user=user).max_paste_chars == 1234


@pytest.mark.parametrize("badges", ["staff", [1], [""], {"a": 1}])
def test_profile_rejects_badges_that_are_not_a_list_of_strings(user, badges):
    profile = PasteProfile(user=user, badges=badges)

    with pytest.raises(ValidationError):
        profile.full_clean()


def test_user_without_profile_gets_default_values(user):
    profile = PasteProfile.for_user(user)

    assert (profile.pk, profile.max_paste_chars, profile.badges) == (None, 1_000_000, [])


def test_paste_url_is_the_api_path(user):
    paste = PasteFactory(owner=user, id="AbCdEfGh1234")

    assert paste.get_absolute_url() == "/pastes/paste/@AbCdEfGh1234"


def test_content_chars_counts_characters_not_bytes(user):
    paste = PasteFactory(owner=user, content="héllo ✓ 😀")

    paste.refresh_from_db()
    assert paste.content_chars == 9


def test_content_chars_follows_an_edit_of_the_content(user):
    paste = PasteFactory(owner=user, content="short")

    Paste.objects.filter(pk=paste.pk).update(content="a little longer")

    paste.refresh_from_db()
    assert paste.content_chars == 15


def test_total_chars_sums_the_pastes_lengths(user, other_user):
    PasteFactory(owner=user, content="abc")
    PasteFactory(owner=user, content="ünïcode")
    PasteFactory(owner=other_user, content="not counted")

    assert Paste.objects.filter(owner=user).total_chars() == 10
