"""The account area in French, German and Spanish (issue 48): each of its pages fetched in English and
in each language, with no English left on the translated one (tests/i18n.py), as a reader sees it
after each step (a form with its errors, a flash message, the second sign-in step).

The site's header and footer are base.html's: its catalog and its checks are the infrastructure's
(tests/foundation/), so only the account area's own words are compared here.
"""

import re
from datetime import timedelta

import pyotp
import pytest
from allauth.account.forms import default_token_generator
from allauth.account.models import EmailAddress, EmailConfirmationHMAC
from allauth.account.utils import user_pk_to_url_str
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP
from allauth.usersessions.models import UserSession
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from accounts import invitations
from accounts.sso_settings import PROVIDER_ID
from pastes.models import ApiKey as PastesKey
from pastes.models import PasteProfile
from reports.models import ApiKey as ReportsKey
from shortener.models import ApiKey as ShortenerKey
from tests.accounts.conftest import signup_data
from tests.accounts.test_sso import sso  # noqa: F401 (a fixture)
from tests.i18n import untranslated

pytestmark = pytest.mark.django_db

LANGUAGES = ("fr", "de", "es")
PASSWORD = "alice-password"
NOTHING_LEFT = {language: [] for language in LANGUAGES}
SITE_CHROME = re.compile(r'<nav class="site-nav".*?</nav>|<footer class="site-footer">.*?</footer>', re.S)
MESSAGES = re.compile(r'<ul class="messages">.*?</ul>', re.S)
# What the pages show of the people and objects made here: theirs, not the interface's words.
NAMES = ("alice", "alice@example.org", "bob", "ci pipeline", "editor", "irc bot", "Acme", "Mozilla/5.0 (X11; Linux)")


def own_words(html: str) -> str:
    return SITE_CHROME.sub("", html)


def english_left(fetch, ignore=()) -> dict[str, list[str]]:
    """What each language's answer still says in English; `fetch(language)` answers the same request."""
    english = fetch("en")
    left = {}
    for language in LANGUAGES:
        translated = fetch(language)
        assert translated.status_code == english.status_code, language
        left[language] = untranslated(
            own_words(english.content.decode()), own_words(translated.content.decode()), language, (*NAMES, *ignore)
        )
    return left


def getter(client: Client, url: str):
    return lambda language: client.get(url, HTTP_ACCEPT_LANGUAGE=language)


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user(username="alice", email="alice@example.org", password=PASSWORD)


@pytest.fixture
def alice_browser(alice) -> Client:
    """Alice signed in through the sign-in form, as allauth records it (its security pages ask for that)."""
    client = Client(HTTP_USER_AGENT="Mozilla/5.0 (X11; Linux)")
    response = client.post("/accounts/login/", {"login": "alice", "password": PASSWORD})
    assert response.status_code == 302
    return client


@pytest.fixture
def staff_client(db) -> Client:
    staff = get_user_model().objects.create_superuser("bob", "bob@example.org", "bob-password")
    client = Client()
    client.force_login(staff)
    return client


# --- sign in, sign up, passwords ---------------------------------------------------


@pytest.mark.parametrize("registration", ["open", "invite", "closed"])
@pytest.mark.parametrize("url", ["/accounts/login/", "/accounts/signup/"])
def test_sign_in_and_sign_up_pages(client, settings, registration, url):
    settings.ACCOUNTS_REGISTRATION = registration

    assert english_left(getter(client, url)) == NOTHING_LEFT


def test_a_refused_sign_in_and_a_refused_sign_up(client, alice, settings):
    settings.ACCOUNTS_REGISTRATION = "open"

    def wrong_password(language):
        return client.post("/accounts/login/", {"login": "alice", "password": "nope"}, HTTP_ACCEPT_LANGUAGE=language)

    def weak_sign_up(language):
        data = signup_data(username="alice", email="alice@example.org", password1="abc", password2="abd")
        return client.post("/accounts/signup/", data, HTTP_ACCEPT_LANGUAGE=language)

    assert english_left(wrong_password) == NOTHING_LEFT
    assert english_left(weak_sign_up) == NOTHING_LEFT


def test_the_sign_in_page_with_single_sign_on_beside_passwords_and_alone(client, sso, settings):  # noqa: F811
    assert english_left(getter(client, "/accounts/login/")) == NOTHING_LEFT

    settings.ACCOUNTS_PASSWORD_LOGIN = False
    assert english_left(getter(client, "/accounts/login/")) == NOTHING_LEFT
    assert english_left(getter(client, "/accounts/password/reset/")) == NOTHING_LEFT  # "Passwords are not used here"


def test_single_sign_on_pages(client, sso):  # noqa: F811
    directory_user = get_user_model().objects.create_user(username="alice", password=None)

    assert english_left(getter(client, f"/accounts/oidc/{PROVIDER_ID}/login/?process=login")) == NOTHING_LEFT
    client.force_login(directory_user)
    assert english_left(getter(client, "/accounts/3rdparty/")) == NOTHING_LEFT
    assert english_left(getter(client, "/accounts/password/set/")) == NOTHING_LEFT


def test_the_confirmation_link_and_an_inactive_account(client, settings):
    settings.ACCOUNTS_REGISTRATION = "open"
    client.post("/accounts/signup/", signup_data())
    key = EmailConfirmationHMAC(EmailAddress.objects.get()).key

    assert english_left(getter(client, f"/accounts/confirm-email/{key}/")) == NOTHING_LEFT
    assert english_left(getter(client, "/accounts/confirm-email/not-a-key/")) == NOTHING_LEFT
    assert english_left(getter(client, "/accounts/inactive/")) == NOTHING_LEFT


def test_password_reset_pages(client, alice):
    key = default_token_generator.make_token(alice)
    from_mail = f"/accounts/password/reset/key/{user_pk_to_url_str(alice)}-{key}/"

    for url in ["/accounts/password/reset/", "/accounts/password/reset/done/", "/accounts/password/reset/key/1-x/"]:
        assert english_left(getter(client, url)) == NOTHING_LEFT, url
    # The mail's link leads on to the form for the new password (allauth keeps the key in the session).
    form = client.get(from_mail)["Location"]
    assert english_left(getter(client, form)) == NOTHING_LEFT


def test_the_pages_after_sign_up_and_sign_out(client, settings):
    settings.ACCOUNTS_REGISTRATION = "open"
    client.post("/accounts/signup/", signup_data())

    assert english_left(getter(client, "/accounts/confirm-email/")) == NOTHING_LEFT


# --- the account area --------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "/accounts/",
        "/accounts/email/",
        "/accounts/password/change/",
        "/accounts/sessions/",
        "/accounts/export/",
        "/accounts/delete/",
        "/accounts/profile/",
        "/accounts/keys/",
        "/accounts/logout/",
    ],
)
def test_each_page_of_the_account_area(alice_browser, url):
    assert english_left(getter(alice_browser, url)) == NOTHING_LEFT


def test_the_sessions_page_with_sessions_elsewhere(alice_browser, alice):
    UserSession.objects.create(user=alice, ip="0.0.0.0", session_key="elsewhere", user_agent="")
    UserSession.objects.filter(session_key="elsewhere").update(created_at=timezone.now() - timedelta(days=3))

    assert english_left(getter(alice_browser, "/accounts/sessions/")) == NOTHING_LEFT

    def signed_out_elsewhere(language):
        UserSession.objects.get_or_create(user=alice, ip="192.0.2.7", session_key="elsewhere", user_agent="curl/8.5.0")
        return alice_browser.post("/accounts/sessions/", follow=True, HTTP_ACCEPT_LANGUAGE=language)

    assert english_left(signed_out_elsewhere) == NOTHING_LEFT


def test_the_keys_page_with_keys_a_new_key_an_error_and_a_revocation(alice_browser, alice):
    ReportsKey.issue(user=alice, name="ci pipeline")
    PastesKey.issue(user=alice, name="editor", scope="read", expires_at=timezone.now() + timedelta(days=9))
    token, _ = ShortenerKey.issue(user=alice, name="irc bot")
    token.revoke()
    expired, _ = ReportsKey.issue(user=alice, name="ci pipeline", expires_at=timezone.now() + timedelta(days=1))
    ReportsKey.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(days=1))

    def make(interface):
        form = {"interface": interface, "name": "editor", "scope": "read", "expires_at": "2099-01-01"}
        return lambda language: alice_browser.post("/accounts/keys/", form, HTTP_ACCEPT_LANGUAGE=language)

    def past_day(language):
        form = {"interface": "reports", "name": "", "scope": "write", "expires_at": "2000-01-01"}
        return alice_browser.post("/accounts/keys/", form, HTTP_ACCEPT_LANGUAGE=language)

    def revoke(language):
        key, _ = PastesKey.issue(user=alice, name="editor")
        url = f"/accounts/keys/pastes-{key.pk}/revoke"
        return alice_browser.post(url, follow=True, HTTP_ACCEPT_LANGUAGE=language)

    assert english_left(getter(alice_browser, "/accounts/keys/")) == NOTHING_LEFT
    for interface in ("reports", "pastes", "shortener"):
        assert english_left(make(interface)) == NOTHING_LEFT, interface
    assert english_left(past_day) == NOTHING_LEFT
    assert english_left(revoke) == NOTHING_LEFT


def test_the_profile_with_an_avatar_an_error_and_a_save(alice_browser, alice):
    PasteProfile.objects.create(user=alice, bio="Hello", avatar="https://images.example/me.png", badges=["early"])

    def wrong_url(language):
        form = {"bio": "Hello", "avatar_url": "ftp://images.example/me.png"}
        return alice_browser.post("/accounts/profile/", form, HTTP_ACCEPT_LANGUAGE=language)

    def saved(language):
        form = {"bio": "Hello", "avatar_url": "https://images.example/me.png"}
        return alice_browser.post("/accounts/profile/", form, follow=True, HTTP_ACCEPT_LANGUAGE=language)

    ignore = ("early", "https://images.example/me.png")
    assert english_left(getter(alice_browser, "/accounts/profile/"), ignore) == NOTHING_LEFT
    assert english_left(wrong_url, ignore) == NOTHING_LEFT
    assert english_left(saved, ignore) == NOTHING_LEFT


def test_deleting_the_account_refused_then_done(client, settings):
    users = get_user_model().objects

    def wrong_password(language):
        client.force_login(users.get_or_create(username="alice")[0])
        return client.post("/accounts/delete/", {"password": "nope"}, HTTP_ACCEPT_LANGUAGE=language)

    def deleted(language):
        alice = users.create_user(username="alice", password=PASSWORD)
        client.force_login(alice)
        response = client.post("/accounts/delete/", {"password": PASSWORD}, follow=True, HTTP_ACCEPT_LANGUAGE=language)
        response.content = "".join(MESSAGES.findall(response.content.decode())).encode()  # the landing page is not ours
        return response

    users.create_user(username="alice", password=PASSWORD)
    assert english_left(wrong_password) == NOTHING_LEFT
    users.all().delete()
    assert english_left(deleted) == NOTHING_LEFT


def test_deleting_an_account_without_a_password_here(client, sso):  # noqa: F811
    directory_user = get_user_model().objects.create_user(username="alice", password=None)
    client.force_login(directory_user)

    def wrong_username(language):
        return client.post("/accounts/delete/", {"username": "bob"}, HTTP_ACCEPT_LANGUAGE=language)

    assert english_left(getter(client, "/accounts/delete/")) == NOTHING_LEFT
    assert english_left(wrong_username) == NOTHING_LEFT


# --- two-factor sign-in ------------------------------------------------------------


def test_turning_two_factor_on(alice_browser):
    pages = ["/accounts/2fa/", "/accounts/2fa/totp/activate/", "/accounts/2fa/webauthn/", "/accounts/2fa/webauthn/add/"]
    for url in pages:
        assert english_left(getter(alice_browser, url)) == NOTHING_LEFT, url

    def wrong_code(language):
        return alice_browser.post("/accounts/2fa/totp/activate/", {"code": "000000"}, HTTP_ACCEPT_LANGUAGE=language)

    assert english_left(wrong_code) == NOTHING_LEFT


def test_with_two_factor_on(alice_browser, alice):
    TOTP.activate(alice, pyotp.random_base32())
    RecoveryCodes.activate(alice)

    pages = ["/accounts/2fa/", "/accounts/2fa/recovery-codes/", "/accounts/2fa/recovery-codes/generate/"]
    for url in [*pages, "/accounts/2fa/totp/deactivate/"]:
        assert english_left(getter(alice_browser, url)) == NOTHING_LEFT, url


def test_the_password_asked_again_before_the_security_pages(alice):
    client = Client()
    client.force_login(alice)  # no sign-in recorded: allauth asks for the password again

    def wrong_password(language):
        return client.post("/accounts/reauthenticate/", {"password": "nope"}, HTTP_ACCEPT_LANGUAGE=language)

    assert client.get("/accounts/2fa/totp/activate/")["Location"].startswith("/accounts/reauthenticate/")
    assert english_left(getter(client, "/accounts/reauthenticate/")) == NOTHING_LEFT
    assert english_left(wrong_password) == NOTHING_LEFT


def test_the_second_sign_in_step_and_a_wrong_code(alice):
    TOTP.activate(alice, pyotp.random_base32())
    client = Client()
    assert client.post("/accounts/login/", {"login": "alice", "password": PASSWORD}).status_code == 302

    def wrong_code(language):
        return client.post("/accounts/2fa/authenticate/", {"code": "000000"}, HTTP_ACCEPT_LANGUAGE=language)

    assert english_left(getter(client, "/accounts/2fa/authenticate/")) == NOTHING_LEFT
    assert english_left(wrong_code) == NOTHING_LEFT


# --- invitations -------------------------------------------------------------------


@pytest.mark.parametrize("registration", ["open", "invite", "closed"])
def test_the_invitation_form_for_staff(staff_client, settings, registration):
    settings.ACCOUNTS_REGISTRATION = registration

    def taken(language):
        return staff_client.post(
            "/accounts/invitations/new", {"email": "bob@example.org"}, HTTP_ACCEPT_LANGUAGE=language
        )

    def sent(language):
        form = {"email": f"{language}@example.org", "language": language}
        return staff_client.post("/accounts/invitations/new", form, follow=True, HTTP_ACCEPT_LANGUAGE=language)

    ignore = [f"{language}@example.org" for language in ("en", *LANGUAGES)]
    assert english_left(getter(staff_client, "/accounts/invitations/new")) == NOTHING_LEFT
    assert english_left(taken) == NOTHING_LEFT
    assert english_left(sent, ignore) == NOTHING_LEFT


def test_an_invitation_opened_refused_and_accepted(client, alice, settings):
    settings.ACCOUNTS_REGISTRATION = "invite"
    used = invitations.invite_path("alice@example.org")
    fresh = invitations.invite_path("newcomer@example.org")

    assert english_left(getter(client, "/accounts/invitations/not-a-token/")) == NOTHING_LEFT
    assert english_left(getter(client, used)) == NOTHING_LEFT
    assert client.get(fresh).status_code == 302

    def other_address(language):
        data = signup_data(email="someone@example.org")
        return client.post("/accounts/signup/", data, HTTP_ACCEPT_LANGUAGE=language)

    assert english_left(getter(client, "/accounts/signup/"), ["newcomer@example.org"]) == NOTHING_LEFT
    assert english_left(other_address, ["newcomer@example.org"]) == NOTHING_LEFT
    settings.ACCOUNTS_REGISTRATION = "closed"
    assert english_left(getter(client, fresh)) == NOTHING_LEFT
