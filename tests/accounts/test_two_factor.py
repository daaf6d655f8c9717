"""Two-factor sign-in (issue 44, item 3 "Security"): TOTP with recovery codes from allauth.mfa, asked for
by every password sign-in (/accounts/login/, the shortener's /s/login, the admin's), while Lstu's
JSON clients of /s/login get a clear failure and API keys work as before.

Codes are made with pyotp from the secret the page shows, as an authenticator app would.
"""

import re

import pyotp
import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework import status

from accounts import signin_limits
from shortener import messages
from shortener.models import ApiKey
from tests.accounts.totp import current_code

pytestmark = pytest.mark.django_db

PASSWORD = "alice-password"
BROWSER = "text/html,application/xhtml+xml"
SECRET_FIELD = re.compile(r'id="authenticator_secret"[^>]*value="([A-Z2-7]+)"')


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user(username="alice", email="alice@example.org", password=PASSWORD)


@pytest.fixture
def secret(alice) -> str:
    """Alice has TOTP on (and the recovery codes allauth makes with it): the secret of her app."""
    secret = pyotp.random_base32()
    TOTP.activate(alice, secret)
    RecoveryCodes.activate(alice)
    return secret


def signed_in_as(client: Client) -> str | None:
    """Who the site's header says is signed in, as a person sees it."""
    match = re.search(r"Signed in as <strong>([^<]+)</strong>", client.get("/").content.decode())
    return match and match.group(1)


def password_step(client: Client, next_url: str = "/pastes/new"):
    return client.post("/accounts/login/", {"login": "alice", "password": PASSWORD, "next": next_url})


def browser_s_login(client: Client):
    return client.post("/s/login", {"login": "alice", "password": PASSWORD, "next": "/s/stats"}, HTTP_ACCEPT=BROWSER)


def code_step(client: Client, code: str):
    return client.post("/accounts/2fa/authenticate/", {"code": code})


# --- turning it on --------------------------------------------------------------


def test_turning_on_totp_with_a_code_made_from_the_shown_secret(client, alice):
    password_step(client)
    # Turning it on asks for the password again (allauth's reauthentication), then shows the secret.
    asked = client.get("/accounts/2fa/totp/activate/")
    confirmed = client.post("/accounts/reauthenticate/", {"password": PASSWORD, "next": "/accounts/2fa/totp/activate/"})
    page = client.get("/accounts/2fa/totp/activate/")
    secret = SECRET_FIELD.search(page.content.decode()).group(1)
    wrong = client.post("/accounts/2fa/totp/activate/", {"code": "000000"})
    assert not Authenticator.objects.filter(user=alice).exists()

    right = client.post("/accounts/2fa/totp/activate/", {"code": current_code(secret)})

    assert asked["Location"].startswith("/accounts/reauthenticate/")
    assert confirmed["Location"] == "/accounts/2fa/totp/activate/"
    assert page.status_code == status.HTTP_200_OK and "Activate Authenticator App" in page.content.decode()
    assert wrong.status_code == status.HTTP_200_OK and "Incorrect code." in wrong.content.decode()
    assert right["Location"] == "/accounts/2fa/recovery-codes/"
    assert set(Authenticator.objects.filter(user=alice).values_list("type", flat=True)) == {"totp", "recovery_codes"}
    codes = client.get("/accounts/2fa/recovery-codes/").content.decode()
    assert "There are 10 out of 10 recovery codes available." in codes
    assert set(RecoveryCodes(Authenticator.objects.get(user=alice, type="recovery_codes")).get_unused_codes()) <= set(
        re.findall(r"\b\d{8}\b", codes)
    )


def test_the_security_pages_are_in_the_account_area_s_layout(client, alice, secret):
    client.force_login(alice)

    body = client.get("/accounts/2fa/").content.decode()

    assert '<nav class="site-nav" aria-label="Site">' in body
    assert 'href="/accounts/2fa/"' in body  # the account area's own menu leads here
    assert "Authenticator App" in body and "Recovery Codes" in body and "Security Keys" in body


@pytest.mark.parametrize(
    "path",
    ["/accounts/2fa/", "/accounts/2fa/recovery-codes/", "/accounts/2fa/webauthn/", "/accounts/2fa/webauthn/add/"],
)
def test_each_security_page_shows_to_its_owner(alice, secret, path):
    client = Client()
    password_step(client)
    code_step(client, current_code(secret))
    client.post("/accounts/reauthenticate/", {"password": PASSWORD})

    response = client.get(path)

    assert response.status_code == status.HTTP_200_OK
    assert '<main id="content">' in response.content.decode()


def test_anonymous_readers_are_sent_to_sign_in(client):
    for path in ("/accounts/2fa/", "/accounts/2fa/totp/activate/", "/accounts/2fa/webauthn/"):
        response = client.get(path)
        assert response.status_code == status.HTTP_302_FOUND, path
        assert response["Location"].startswith("/accounts/"), path


# --- signing in on /accounts/login/ -----------------------------------------------


def test_the_password_alone_no_longer_signs_in(client, secret):
    response = password_step(client)

    assert response["Location"] == "/accounts/2fa/authenticate/"
    assert signed_in_as(client) is None
    assert client.get("/pastes/new", HTTP_ACCEPT=BROWSER)["Location"].startswith("/accounts/login/")
    assert "Two-Factor Authentication" in client.get("/accounts/2fa/authenticate/").content.decode()


def test_the_right_code_signs_in_and_goes_on_to_next(client, secret):
    password_step(client)

    response = code_step(client, current_code(secret))

    assert response["Location"] == "/pastes/new"
    assert signed_in_as(client) == "alice"


def test_a_wrong_code_is_refused(client, secret):
    password_step(client)
    right = current_code(secret)

    response = code_step(client, "000000" if right != "000000" else "111111")

    assert response.status_code == status.HTTP_200_OK
    assert "Incorrect code." in response.content.decode()
    assert signed_in_as(client) is None


def test_wrong_codes_count_as_failed_sign_ins_and_lock_the_account(client, settings, secret):
    settings.ACCOUNTS_SIGNIN_ACCOUNT_FAILURES = 3
    password_step(client)
    for _ in range(3):
        assert "Incorrect code." in code_step(client, "000000").content.decode()

    locked = code_step(client, current_code(secret))
    again = Client().post("/s/login", {"login": "alice", "password": PASSWORD, "_format": "json"})

    assert signin_limits.locked_message(60) in locked.content.decode()
    assert signed_in_as(client) is None
    # The password step is locked too, as after wrong passwords.
    assert again.status_code == status.HTTP_429_TOO_MANY_REQUESTS
    assert again.json() == {"success": False, "msg": messages.TOO_MANY_LOGINS.format(seconds=60)}


def test_a_recovery_code_signs_in_once(alice, secret):
    (code, *_) = RecoveryCodes(Authenticator.objects.get(user=alice, type="recovery_codes")).get_unused_codes()
    first, second = Client(), Client()

    password_step(first)
    used = code_step(first, code)
    password_step(second)
    again = code_step(second, code)

    assert used["Location"] == "/pastes/new" and signed_in_as(first) == "alice"
    assert again.status_code == status.HTTP_200_OK and "Incorrect code." in again.content.decode()
    assert signed_in_as(second) is None


def test_a_wrong_password_is_refused_before_any_code_is_asked(client, secret):
    response = client.post("/accounts/login/", {"login": "alice", "password": "wrong"})

    assert response.status_code == status.HTTP_200_OK and "not correct" in response.content.decode()


# --- the shortener's /s/login (Lstu's) --------------------------------------------


def test_s_login_json_refuses_an_account_with_two_factor_clearly(client, secret):
    response = client.post("/s/login", {"login": "alice", "password": PASSWORD, "_format": "json"})

    assert response.status_code == status.HTTP_403_FORBIDDEN
    assert response.json() == {
        "success": False,
        "msg": messages.LOGIN_NEEDS_SECOND_FACTOR.format(url="http://testserver/accounts/login/"),
    }
    assert "two-factor" in response.json()["msg"]
    assert "_auth_user_id" not in client.session
    assert client.get("/s/login", {"_format": "json"}).json()["user"] is None


def test_s_login_json_keeps_lstu_s_answers_for_a_wrong_password_with_two_factor(client, secret):
    response = client.post("/s/login", {"login": "alice", "password": "wrong", "_format": "json"})

    assert response.status_code == status.HTTP_401_UNAUTHORIZED
    assert response.json() == {"success": False, "msg": messages.LOGIN_FAILED}


def test_s_login_json_without_two_factor_is_unchanged(client, alice):
    response = client.post("/s/login", {"login": "alice", "password": PASSWORD, "_format": "json"})

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "msg": messages.LOGIN_OK}
    assert client.get("/s/login", {"_format": "json"}).json()["user"] == "alice"


def test_s_login_html_hands_over_to_the_second_step_then_goes_to_next(client, secret):
    response = browser_s_login(client)
    before = signed_in_as(client)
    coded = code_step(client, current_code(secret))

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/accounts/2fa/authenticate/"
    assert before is None
    assert coded["Location"] == "/s/stats"
    assert signed_in_as(client) == "alice"
    assert client.get("/s/stats", HTTP_ACCEPT=BROWSER).status_code == status.HTTP_200_OK


def test_s_login_html_without_two_factor_is_unchanged(client, alice):
    response = browser_s_login(client)

    assert response["Location"] == "/s/stats"
    assert signed_in_as(client) == "alice"


# --- the admin's sign-in ----------------------------------------------------------


def test_the_admin_sign_in_asks_for_the_code_too(client, alice, secret):
    alice.is_staff = alice.is_superuser = True
    alice.save()

    response = client.post("/admin/login/?next=/admin/", {"username": "alice", "password": PASSWORD, "next": "/admin/"})
    refused = client.get("/admin/")
    coded = code_step(client, current_code(secret))

    assert response["Location"] == "/accounts/2fa/authenticate/"
    assert refused["Location"].startswith("/admin/login/")
    assert coded["Location"] == "/admin/"
    assert client.get("/admin/").status_code == status.HTTP_200_OK


def test_the_admin_sign_in_without_two_factor_is_unchanged(client, alice):
    alice.is_staff = alice.is_superuser = True
    alice.save()

    response = client.post("/admin/login/?next=/admin/", {"username": "alice", "password": PASSWORD, "next": "/admin/"})

    assert response["Location"] == "/admin/"
    assert client.get("/admin/").status_code == status.HTTP_200_OK


def test_the_admin_sign_in_still_refuses_a_wrong_password_with_two_factor(client, alice, secret):
    alice.is_staff = True
    alice.save()

    response = client.post("/admin/login/", {"username": "alice", "password": "wrong", "next": "/admin/"})

    assert response.status_code == status.HTTP_200_OK
    assert "Please enter the correct username and password" in response.content.decode()
    assert "_auth_user_id" not in client.session


# --- API keys ---------------------------------------------------------------------


def test_api_keys_work_as_before_with_two_factor_on(client, alice, secret):
    _, raw_key = ApiKey.issue(user=alice, name="bot")

    response = client.get("/s/stats", HTTP_AUTHORIZATION=f"Bearer {raw_key}")

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == []
