"""The account area's mails in their reader's language (issue 48): a mail sent while answering a request
is in that request's language (sign-up, password reset, a staff member's invitation); an invitation is
in the language staff choose for it (the page's by default), or `manage.py invite --language`'s.

And what the account area answers as data stays the same in every language: the export's JSON, and
the APIs' answers to the keys made here (clients match their messages word for word).
"""

import io

import orjson
import pytest
import time_machine
from django.core import mail
from django.core.management import call_command

from reports.models import ApiKey as ReportsKey
from tests.accounts.conftest import LINK, signup_data
from tests.i18n import is_english_left

pytestmark = pytest.mark.django_db

LANGUAGES = ("fr", "de", "es")


def lines_of(message) -> set[str]:
    return {line.strip() for line in [message.subject, *message.body.splitlines()] if line.strip()}


def english_left(english, translated, language: str, ignore=()) -> list[str]:
    """The lines of the translated mail (its subject too) that are the English mail's, in English."""
    ignore = frozenset(ignore)
    shared = lines_of(english) & lines_of(translated)
    return sorted(line for line in shared if not LINK.fullmatch(line) and is_english_left(line, language, ignore))


def one_mail_to(address: str):
    sent = [message for message in mail.outbox if address in message.to]
    assert len(sent) == 1, [message.to for message in mail.outbox]
    return sent[0]


def test_the_sign_up_confirmation_is_in_the_language_of_the_sign_up(client, settings):
    settings.ACCOUNTS_REGISTRATION = "open"
    for language in ("en", *LANGUAGES):
        data = signup_data(username=f"newcomer-{language}", email=f"{language}@example.org")
        client.post("/accounts/signup/", data, HTTP_ACCEPT_LANGUAGE=language)
        client.logout()

    english = one_mail_to("en@example.org")
    assert english.subject == "[Webtools] Please Confirm Your Email Address"
    for language in LANGUAGES:
        translated = one_mail_to(f"{language}@example.org")
        assert translated.subject != english.subject
        assert english_left(english, translated, language, ["testserver"]) == [], language


def test_the_password_reset_mail_is_in_the_language_of_the_request(client, django_user_model):
    for language in ("en", *LANGUAGES):
        django_user_model.objects.create_user(f"user-{language}", f"{language}@example.org", "pw")
        client.post("/accounts/password/reset/", {"email": f"{language}@example.org"}, HTTP_ACCEPT_LANGUAGE=language)

    english = one_mail_to("en@example.org")
    assert english.subject == "[Webtools] Password Reset Email"
    for language in LANGUAGES:
        translated = one_mail_to(f"{language}@example.org")
        assert translated.subject != english.subject
        assert english_left(english, translated, language, ["testserver"]) == [], language


@pytest.fixture
def staff_client(client, django_user_model, settings):
    settings.ACCOUNTS_REGISTRATION = "invite"
    client.force_login(django_user_model.objects.create_superuser("bob", "bob@example.org", "bob-password"))
    return client


def test_an_invitation_is_in_the_language_of_the_staff_page_by_default(staff_client):
    for language in ("en", *LANGUAGES):
        staff_client.post(
            "/accounts/invitations/new", {"email": f"{language}@example.org"}, HTTP_ACCEPT_LANGUAGE=language
        )

    english = one_mail_to("en@example.org")
    assert english.subject == "[Webtools] You are invited to make an account"
    assert "You have been invited to make an account on Webtools." in english.body
    for language in LANGUAGES:
        translated = one_mail_to(f"{language}@example.org")
        assert translated.subject != english.subject
        assert english_left(english, translated, language) == [], language


def test_staff_choose_the_invitation_s_language(staff_client):
    page = staff_client.get("/accounts/invitations/new", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    staff_client.post("/accounts/invitations/new", {"email": "en@example.org", "language": "en"})
    staff_client.post("/accounts/invitations/new", {"email": "de@example.org", "language": "de"})

    assert '<option value="fr" selected>Français</option>' in page
    german = one_mail_to("de@example.org")
    assert german.subject == "[Webtools] Sie sind eingeladen, ein Konto anzulegen"
    assert "Sie wurden eingeladen, ein Konto bei Webtools anzulegen." in german.body
    assert english_left(one_mail_to("en@example.org"), german, "de") == []


def test_manage_py_invite_mails_in_the_language_it_is_given(settings):
    settings.ACCOUNTS_REGISTRATION = "invite"
    call_command("invite", "es@example.org", "--language", "es", stdout=io.StringIO())
    call_command("invite", "en@example.org", stdout=io.StringIO())

    spanish, english = one_mail_to("es@example.org"), one_mail_to("en@example.org")
    assert spanish.subject == "[Webtools] Te invitamos a crear una cuenta"
    assert english.subject == "[Webtools] You are invited to make an account"
    assert english_left(english, spanish, "es") == []


def test_the_export_is_the_same_json_in_every_language(alice_client, user):
    alice_client.post("/accounts/keys/", {"interface": "pastes", "name": "ci", "scope": "read", "expires_at": ""})

    def export(language: str) -> bytes:
        with time_machine.travel("2026-06-15T12:00:00Z", tick=False):  # the file says when it was made
            response = alice_client.post("/accounts/export/", HTTP_ACCEPT_LANGUAGE=language)
            assert response.status_code == 200
            return b"".join(response.streaming_content)

    english = export("en")
    assert orjson.loads(english)["api_keys"][0]["scope"] == "read"
    assert all(export(language) == english for language in LANGUAGES)


@pytest.mark.parametrize(
    ("method", "url"),
    [("get", "/api/v1/reports"), ("post", "/api/v1/reports"), ("get", "/pastes/accounts/@alice")],
)
def test_the_apis_answer_a_key_made_here_in_english_whatever_the_language(client, user, method, url):
    _, raw_read_only = ReportsKey.issue(user=user, name="ci", scope="read")
    revoked, raw_revoked = ReportsKey.issue(user=user, name="old")
    revoked.revoke()

    def answers(language: str) -> list[tuple[int, bytes]]:
        sent = []
        for header in (f"Bearer {raw_read_only}", f"Bearer {raw_revoked}", "Bearer rpt_unknown"):
            response = getattr(client, method)(url, {}, HTTP_AUTHORIZATION=header, HTTP_ACCEPT_LANGUAGE=language)
            sent.append((response.status_code, response.content))
        return sent

    english = answers("en")
    assert {status for status, _ in english} & {401, 403}
    assert all(answers(language) == english for language in LANGUAGES)
