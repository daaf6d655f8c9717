import pytest
from django.db import IntegrityError

from shortener.models import CODE_ALPHABET, ShortLink
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db


def test_url_digest_follows_a_url_saved_with_update_fields():
    link = ShortLinkFactory(url="https://old.example/")
    link.url = "https://new.example/"

    link.save(update_fields=["url"])

    link.refresh_from_db()
    assert link.url_digest == ShortLink.digest("https://new.example/")


def test_two_generated_links_of_one_owner_cannot_share_a_url(user):
    ShortLinkFactory(owner=user, url="https://example.com/")

    with pytest.raises(IntegrityError):
        ShortLinkFactory(owner=user, url="https://example.com/")


def test_codes_are_unique():
    ShortLinkFactory(code="same")

    with pytest.raises(IntegrityError):
        ShortLinkFactory(code="same")


def test_generated_codes_use_only_the_alphabet_and_differ():
    codes = {ShortLink.generate_code() for _ in range(200)}

    assert len(codes) == 200
    assert all(len(code) == 8 and set(code) <= set(CODE_ALPHABET) for code in codes)


def test_str_shows_code_and_target():
    assert str(ShortLink(code="abc", url="https://example.com/")) == "abc ---> https://example.com/"
