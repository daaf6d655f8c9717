"""The keys page's and the invitations' words go through Django's translation, as allauth's pages do:
with a catalog that marks every string it translates, each sentence a reader sees comes out marked."""

import pytest
from django.utils import translation

from pastes.models import ApiKey as PastesKey

pytestmark = pytest.mark.django_db


@pytest.fixture
def marking_catalog(monkeypatch):
    """Every gettext, ngettext and pgettext call answers «…»: what is not marked for translation stays bare."""
    trans = translation._trans
    gettext, ngettext, pgettext = trans.gettext, trans.ngettext, trans.pgettext
    monkeypatch.setattr(trans, "gettext", lambda message: f"«{gettext(message)}»")
    monkeypatch.setattr(trans, "ngettext", lambda singular, plural, n: f"«{ngettext(singular, plural, n)}»")
    monkeypatch.setattr(trans, "pgettext", lambda context, message: f"«{pgettext(context, message)}»")


def page_of(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def test_the_keys_page_is_translated(marking_catalog, alice_client, user):
    PastesKey.issue(user=user, name="editor")
    page = page_of(alice_client, "/accounts/keys/")
    made = alice_client.post(
        "/accounts/keys/", {"interface": "reports", "name": "ci", "scope": "read", "expires_at": "2020-01-01"}
    ).content.decode()

    for words in [
        "«API keys»",
        "«Your keys for the <a",
        "«Your keys»",
        "«Interface»",
        "«Last used»",
        "«Never»",
        "«Revoke»",
        "«Revoke the key ",
        "«Times are UTC.»",
        "«Make a key»",
        "«What the key is for, e.g. CI or a bot.»",
        "«Expires on (optional)»",
        "«Make the key»",
        "«Pastes»",
    ]:
        assert words in page, words
    assert "«Choose a day after today: this one has begun or is past.»" in made


def test_a_new_key_and_a_revocation_are_translated(marking_catalog, alice_client, user):
    made = alice_client.post(
        "/accounts/keys/", {"interface": "pastes", "name": "ci", "scope": "write", "expires_at": ""}
    ).content.decode()
    api_key = PastesKey.objects.get()
    revoked = alice_client.post(f"/accounts/keys/pastes-{api_key.pk}/revoke", follow=True).content.decode()

    assert "«Your new " in made
    assert "«Copy it now: it is stored only as a hash and cannot be shown again.»" in made
    assert "«Key “ci” (" in made
    assert "«Copy»" in made
    assert f"«The key {api_key.hint}… is revoked: it no longer opens anything.»" in revoked


def test_the_invitation_pages_are_translated(marking_catalog, admin_client, client, settings):
    settings.ACCOUNTS_REGISTRATION = "invite"
    invite = page_of(admin_client, "/accounts/invitations/new")
    refused = client.get("/accounts/invitations/not-a-token/").content.decode()

    for words in ["«Invite someone»", "«The address gets a link", "«Mail the invitation»", "«Email address»"]:
        assert words in invite, words
    for words in ["«Invitation»", "«This invitation link is not valid", "«Sign in»", "«Reset a password»"]:
        assert words in refused, words
