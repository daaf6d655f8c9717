"""Passkeys and TOTP in Chromium (issue 44): a passkey made by a virtual authenticator (Chrome DevTools'
WebAuthn domain, the real browser API end to end), then the newcomer's whole journey in one test:
sign up → mail → confirm → sign in → make a key → use it over HTTP → turn on TOTP → add a passkey →
sign out → sign in with the passkey.

WebAuthn needs a secure origin: the live server is http://localhost, which Chromium and fido2 both
treat as one, so MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN stays off here too.
"""

import re

import httpx
import pytest
from allauth.mfa.models import Authenticator
from django.core import mail

from pastes.models import Paste
from tests.accounts.conftest import LINK, STRONG_PASSWORD
from tests.accounts.totp import current_code
from tests.axe import axe_violations, describe
from tests.browser import DESKTOP, PHONE, collect_csp_errors, overflow, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AUTHENTICATOR = {
    "options": {
        "protocol": "ctap2",
        "transport": "internal",
        "hasResidentKey": True,
        "hasUserVerification": True,
        "isUserVerified": True,
    }
}


def with_authenticator(context, page) -> str:
    """Give the page a virtual platform authenticator (a phone's or laptop's, with a resident key)."""
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    return cdp.send("WebAuthn.addVirtualAuthenticator", AUTHENTICATOR)["authenticatorId"]


def add_passkey(page, base: str, name: str) -> None:
    page.goto(f"{base}/accounts/2fa/webauthn/add/")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Passwordless").check()  # a passkey: it signs in on its own, without the password
    page.locator("#mfa_webauthn_add").click()
    # To the recovery codes made with a first authenticator, else back to the account's security page.
    page.wait_for_url(re.compile(r"/accounts/2fa/(recovery-codes/)?$"))
    assert page.get_by_role("status").filter(has_text="Security key added.").is_visible()


def sign_out(page, base: str) -> None:
    page.goto(f"{base}/accounts/logout/")
    page.locator("main form").get_by_role("button", name="Sign Out").click()
    page.wait_for_url(f"{base}/")
    assert page.get_by_test_id("signed-in-as").count() == 0


def sign_in_with_passkey(page, base: str, next_path: str = "") -> None:
    page.goto(f"{base}/accounts/login/" + (f"?next={next_path}" if next_path else ""))
    page.get_by_role("button", name="Sign in with a passkey").click()
    page.wait_for_url(f"{base}{next_path or '/'}")


def assert_accessible(page) -> None:
    violations = axe_violations(page)
    assert violations == [], describe(violations)
    assert overflow(page) == 0


def test_add_a_passkey_sign_out_and_sign_in_with_it_on_a_phone_in_dark_mode(browser, live_server, user):
    base = live_server.url
    context = browser.new_context(viewport=PHONE, color_scheme="dark")
    sign_in(context, live_server, user)
    page = context.new_page()
    page.set_default_timeout(15_000)
    csp_errors = collect_csp_errors(page)
    with_authenticator(context, page)

    add_passkey(page, base, "my phone")
    # The first authenticator comes with recovery codes, shown once added.
    assert page.url == f"{base}/accounts/2fa/recovery-codes/"
    assert_accessible(page)
    page.goto(f"{base}/accounts/2fa/webauthn/")
    assert page.locator("main").get_by_text("my phone").is_visible()
    assert page.locator("main").get_by_text("Passkey").first.is_visible()
    assert_accessible(page)
    (passkey,) = Authenticator.objects.filter(user=user, type=Authenticator.Type.WEBAUTHN)
    assert passkey.wrap().is_passwordless

    sign_out(page, base)
    sign_in_with_passkey(page, base, "/pastes/new")

    assert page.get_by_test_id("signed-in-as").inner_text() == "Signed in as alice"
    # Without it, a password alone is not enough any more: the second step asks for the passkey.
    sign_out(page, base)
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Login").fill("alice")
    page.get_by_label("Password").fill("alice-password")
    page.locator("main form").get_by_role("button", name="Sign In").click()
    page.wait_for_url(f"{base}/accounts/2fa/authenticate/")
    assert_accessible(page)
    page.get_by_role("button", name="Use a security key").click()
    page.wait_for_url(f"{base}/")
    assert page.get_by_test_id("signed-in-as").inner_text() == "Signed in as alice"
    assert csp_errors == []
    context.close()


def test_the_whole_journey_from_sign_up_to_signing_in_with_a_passkey(browser, live_server, settings):
    settings.ACCOUNTS_REGISTRATION = "open"
    base = live_server.url
    context = browser.new_context(viewport=DESKTOP, color_scheme="light")
    page = context.new_page()
    page.set_default_timeout(15_000)
    csp_errors = collect_csp_errors(page)
    with_authenticator(context, page)

    # Sign up.
    page.goto(f"{base}/accounts/signup/")
    page.locator('input[name="username"]').fill("newcomer")
    page.locator('input[name="email"]').fill("newcomer@example.org")
    page.locator('input[name="password1"]').fill(STRONG_PASSWORD)
    page.locator('input[name="password2"]').fill(STRONG_PASSWORD)
    page.locator("main form").get_by_role("button").click()
    page.wait_for_url(f"{base}/accounts/confirm-email/")

    # The mail, and its link confirmed in the mail client's browser.
    (message,) = mail.outbox
    (link,) = [link for link in LINK.findall(message.body) if "/accounts/confirm-email/" in link]
    mail_client = browser.new_context()
    other = mail_client.new_page()
    other.goto(link)
    other.locator("main form").get_by_role("button", name="Confirm").click()
    other.wait_for_url(f"{base}/accounts/login/")
    mail_client.close()

    # Sign in with the password.
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Login").fill("newcomer")
    page.get_by_label("Password").fill(STRONG_PASSWORD)
    page.locator("main form").get_by_role("button", name="Sign In").click()
    page.wait_for_url(f"{base}/")
    assert page.get_by_test_id("signed-in-as").inner_text() == "Signed in as newcomer"

    # Make a pastes key on /accounts/keys/ and use it as curl would.
    page.goto(f"{base}/accounts/keys/")
    page.get_by_label("Interface").select_option("pastes")
    page.get_by_label("Name").fill("my editor")
    page.get_by_role("button", name="Make the key").click()
    raw_key = page.locator("#new-key-value").input_value()
    created = httpx.post(
        f"{base}/pastes/create?name=from%20my%20editor",
        content=b"print('hello')\n",
        headers={"Authorization": raw_key, "Content-Type": "text/plain", "Accept": "text/plain"},
        timeout=15,
    )
    paste = Paste.objects.get()
    assert (created.status_code, created.text) == (200, f"{base}/pastes/{paste.id}")
    assert (paste.owner.username, paste.name, paste.content) == ("newcomer", "from my editor", "print('hello')\n")
    refused = httpx.post(f"{base}/pastes/create", content=b"x", headers={"Authorization": "nope"}, timeout=15)
    assert refused.status_code == 401 and Paste.objects.count() == 1

    # Turn on TOTP: the password again, then a code from the secret the page shows.
    page.goto(f"{base}/accounts/2fa/")
    page.locator("main").get_by_role("link", name="Activate").click()
    page.wait_for_url(re.compile(r"/accounts/reauthenticate/"))
    page.get_by_label("Password").fill(STRONG_PASSWORD)
    page.locator("main form").get_by_role("button", name="Confirm").click()
    page.wait_for_url(f"{base}/accounts/2fa/totp/activate/")
    secret = page.locator("#authenticator_secret").input_value()
    page.get_by_label("Authenticator code").fill(current_code(secret))
    page.locator("main form").get_by_role("button", name="Activate").click()
    page.wait_for_url(f"{base}/accounts/2fa/recovery-codes/")
    assert page.locator("#recovery_codes").input_value().count("\n") == 9  # ten codes

    # Add a passkey.
    add_passkey(page, base, "laptop")
    assert {a.type for a in Authenticator.objects.filter(user__username="newcomer")} == {
        "totp",
        "recovery_codes",
        "webauthn",
    }

    # Sign out; the passkey alone signs back in (no password, no code).
    sign_out(page, base)
    sign_in_with_passkey(page, base)

    assert page.get_by_test_id("signed-in-as").inner_text() == "Signed in as newcomer"
    assert csp_errors == []
    context.close()
