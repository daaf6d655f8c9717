"""Single sign-on in Chromium (issue 44, item 4): the full OpenID Connect redirect flow against a real
provider (allauth's own, tests/oidc_provider, in its own process), and ACCOUNTS_PASSWORD_LOGIN=0."""

import pytest
from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user_model
from django.core import mail

from accounts.sso_settings import PROVIDER_ID, form_targets, sso_apps
from tests.axe import axe_violations, describe
from tests.browser import DESKTOP, PHONE, collect_csp_errors, overflow, sign_in
from tests.oidc_provider.server import CLIENT_ID, CLIENT_SECRET, IdentityProvider

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

User = get_user_model()

PROVIDER_USERS = [
    {"username": "alice", "password": "alice-at-the-provider-7", "email": "alice@acme.example", "verified": True},
    {"username": "carol", "password": "carol-at-the-provider-7", "email": "carol@acme.example", "verified": False},
    {"username": "dave", "password": "dave-at-the-provider-7", "email": "dave@acme.example", "verified": True},
    {"username": "erin", "password": "erin-at-the-provider-7", "email": "erin@acme.example", "verified": True},
    {"username": "frank", "password": "frank-at-the-provider-7", "email": "", "verified": False},
]
PASSWORDS = {person["username"]: person["password"] for person in PROVIDER_USERS}


@pytest.fixture(scope="module")
def identity_provider(live_server):
    provider = IdentityProvider(
        redirect_uri=f"{live_server.url}/accounts/oidc/{PROVIDER_ID}/login/callback/", users=PROVIDER_USERS
    )
    yield provider
    provider.stop()


@pytest.fixture
def sso(settings, identity_provider):
    """The service under test configured as OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and OIDC_NAME=Acme say."""
    settings.OIDC_ISSUER = identity_provider.url
    settings.OIDC_NAME = "Acme"
    settings.SOCIALACCOUNT_PROVIDERS = {
        "openid_connect": {
            "APPS": sso_apps(issuer=identity_provider.url, name="Acme", client_id=CLIENT_ID, secret=CLIENT_SECRET),
            "OAUTH_PKCE_ENABLED": True,
        }
    }
    settings.SECURE_CSP = {**settings.SECURE_CSP, "form-action": ["'self'", *form_targets(identity_provider.url)]}
    return identity_provider


def new_page(browser, **options):
    context = browser.new_context(**options)
    page = context.new_page()
    page.set_default_timeout(15_000)
    return context, page


def sign_in_at_provider(page, provider, username: str) -> None:
    """On the provider's pages: its sign-in form (unless its session is still there), then consent."""
    page.wait_for_url(f"{provider.url}/**")
    if "/accounts/login/" in page.url:
        page.locator('input[name="login"]').fill(username)
        page.locator('input[name="password"]').fill(PASSWORDS[username])
        page.locator("form").get_by_role("button", name="Sign In").click()
    page.wait_for_url(f"{provider.url}/identity/o/authorize**")
    page.get_by_role("button", name="Authorize").click()


def single_sign_on(page, base: str, provider, username: str) -> None:
    """From the site's sign-in page: "Sign in with Acme", allauth's confirmation, the provider's pages."""
    page.get_by_role("link", name="Sign in with Acme").click()
    page.wait_for_url(f"{base}/accounts/oidc/{PROVIDER_ID}/login/**")
    page.locator("main form").get_by_role("button", name="Continue").click()
    sign_in_at_provider(page, provider, username)


def test_first_sign_in_makes_the_account_and_the_second_reuses_it(browser, live_server, sso, settings):
    settings.ACCOUNTS_REGISTRATION = "closed"  # the provider decides who comes in, not self sign-up
    base = live_server.url
    context, page = new_page(browser, viewport=PHONE, color_scheme="dark")
    csp_errors = collect_csp_errors(page)
    widths = {}

    page.goto(f"{base}/reports/")
    page.wait_for_url(f"{base}/accounts/login/?next=/reports/")
    widths["login"] = overflow(page)
    assert page.locator('input[name="password"]').count() == 1  # password sign-in stays beside it
    assert axe_violations(page) == [], describe(axe_violations(page))
    page.get_by_role("link", name="Sign in with Acme").click()
    page.wait_for_url(f"{base}/accounts/oidc/{PROVIDER_ID}/login/**")
    widths["confirm"] = overflow(page)
    background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    assert background == "rgb(13, 17, 23)"  # the site's dark palette: allauth's page in the site's layout
    assert axe_violations(page) == [], describe(axe_violations(page))
    page.locator("main form").get_by_role("button", name="Continue").click()
    sign_in_at_provider(page, sso, "alice")

    page.wait_for_url(f"{base}/reports/")  # back where sign-in began
    assert page.get_by_test_id("signed-in-as").inner_text() == "Signed in as alice"
    user = User.objects.get(email="alice@acme.example")
    assert user.username == "alice"
    assert not user.has_usable_password()
    assert EmailAddress.objects.get(user=user).verified  # the provider said email_verified
    (account,) = SocialAccount.objects.filter(user=user)
    assert account.provider == PROVIDER_ID

    # The connections page, in the site's layout, lists the provider's account.
    page.goto(f"{base}/accounts/3rdparty/")
    widths["connections"] = overflow(page)
    assert "Acme" in page.locator("main").inner_text()
    assert axe_violations(page) == [], describe(axe_violations(page))

    # Signed out, then in again (the provider remembers its own session): the same account.
    page.goto(f"{base}/accounts/logout/")
    page.locator("main form").get_by_role("button").click()
    page.goto(f"{base}/accounts/login/?next=/pastes/")
    single_sign_on(page, base, sso, "alice")
    page.wait_for_url(f"{base}/pastes/")
    assert page.get_by_test_id("signed-in-as").inner_text() == "Signed in as alice"
    assert User.objects.filter(email="alice@acme.example").count() == 1
    assert SocialAccount.objects.count() == 1
    context.close()

    assert widths == dict.fromkeys(widths, 0)
    assert csp_errors == []


def test_an_address_the_provider_did_not_verify_is_confirmed_by_mail(browser, live_server, sso, registration):
    registration("closed", verification="mandatory")
    base = live_server.url
    context, page = new_page(browser)
    page.goto(f"{base}/accounts/login/")
    single_sign_on(page, base, sso, "carol")
    page.wait_for_url(f"{base}/accounts/confirm-email/")
    user = User.objects.get(email="carol@acme.example")
    assert not EmailAddress.objects.get(user=user).verified
    (message,) = mail.outbox
    assert message.to == ["carol@acme.example"]
    assert page.get_by_test_id("signed-in-as").count() == 0
    context.close()


def test_a_confirmed_local_address_signs_in_to_that_account_an_unconfirmed_one_does_not(browser, live_server, sso):
    base = live_server.url
    dave = User.objects.create_user("dave-here", "dave@acme.example", "dave-local-password-7")
    EmailAddress.objects.create(user=dave, email="dave@acme.example", verified=True, primary=True)
    # Someone typed erin's address at sign-up here and never confirmed it: it may not be erin.
    stranger = User.objects.create_user("not-erin", "erin@acme.example", "stranger-knows-this-7")
    EmailAddress.objects.create(user=stranger, email="erin@acme.example", verified=False, primary=True)

    context, page = new_page(browser)
    page.goto(f"{base}/accounts/login/")
    single_sign_on(page, base, sso, "dave")
    page.wait_for_url(f"{base}/")
    assert page.get_by_test_id("signed-in-as").inner_text() == "Signed in as dave-here"
    assert SocialAccount.objects.get(provider=PROVIDER_ID).user == dave  # connected: the next time by `sub`
    context.close()

    context, page = new_page(browser)
    page.goto(f"{base}/accounts/login/")
    single_sign_on(page, base, sso, "erin")
    # Not let in: allauth answers as for a new account (telling nobody the address is known here)
    # and mails the address's owner instead.
    page.wait_for_url(f"{base}/accounts/confirm-email/")
    assert page.get_by_test_id("signed-in-as").count() == 0
    assert SocialAccount.objects.filter(user__email="erin@acme.example").count() == 0
    assert User.objects.filter(email="erin@acme.example").count() == 1
    assert [message.to for message in mail.outbox] == [["erin@acme.example"]]
    stranger.refresh_from_db()
    assert stranger.check_password("stranger-knows-this-7")
    context.close()


def test_single_sign_on_only_hides_the_password_form_and_refuses_a_password(browser, live_server, sso, settings):
    settings.ACCOUNTS_PASSWORD_LOGIN = False
    User.objects.create_user("pat", "pat@example.org", "pat-local-password-7")
    base = live_server.url
    context, page = new_page(browser, viewport=PHONE, color_scheme="dark")
    page.goto(f"{base}/accounts/login/")
    assert page.locator('input[name="password"]').count() == 0
    assert page.get_by_role("link", name="sign up").count() == 0
    assert overflow(page) == 0
    assert axe_violations(page) == [], describe(axe_violations(page))

    # A password posted anyway, with a valid CSRF token (from the confirmation page's form): refused,
    # and nobody is signed in.
    page.goto(f"{base}/accounts/oidc/{PROVIDER_ID}/login/")
    csrf = next(cookie["value"] for cookie in context.cookies() if cookie["name"] == "csrftoken")
    response = page.request.post(
        f"{base}/accounts/login/",
        form={"login": "pat", "password": "pat-local-password-7", "csrfmiddlewaretoken": csrf},
        headers={"Referer": f"{base}/accounts/login/"},
    )
    assert response.status == 403
    assert "Passwords are not used here" in response.text()
    page.goto(f"{base}/")
    assert page.get_by_test_id("signed-in-as").count() == 0

    # The button still signs in.
    page.goto(f"{base}/accounts/login/")
    single_sign_on(page, base, sso, "alice")
    page.wait_for_url(f"{base}/")
    assert page.get_by_test_id("signed-in-as").inner_text() == "Signed in as alice"
    context.close()


@pytest.mark.parametrize(("viewport", "scheme"), [(PHONE, "dark"), (DESKTOP, "light")])
def test_the_single_sign_on_pages_pass_axe_and_fit(browser, live_server, sso, settings, viewport, scheme):
    base = live_server.url
    alice = User.objects.create_user("alice", "alice@example.org")
    SocialAccount.objects.create(user=alice, provider=PROVIDER_ID, uid="alice-at-acme")
    pages = {
        "sign-in with its button": ("anonymous", "/accounts/login/"),
        "confirmation": ("anonymous", f"/accounts/oidc/{PROVIDER_ID}/login/?process=login"),
        "connections": ("signed-in", "/accounts/3rdparty/"),
        "password reset, single sign-on only": ("anonymous", "/accounts/password/reset/"),
        "sign-in, single sign-on only": ("anonymous", "/accounts/login/"),
    }
    problems = {}
    for name, (who, path) in pages.items():
        settings.ACCOUNTS_PASSWORD_LOGIN = "single sign-on only" not in name
        context, page = new_page(browser, viewport=viewport, color_scheme=scheme)
        if who == "signed-in":
            sign_in(context, live_server, alice)
        csp_errors = collect_csp_errors(page)
        page.goto(f"{base}{path}")
        assert page.get_by_role("heading", level=1).count() == 1, name
        violations = axe_violations(page)
        if violations or overflow(page) or csp_errors:
            problems[name] = (describe(violations), overflow(page), csp_errors)
        context.close()

    assert problems == {}


def test_a_provider_that_gives_no_address_leads_to_allauth_s_form_for_one(browser, live_server, sso, registration):
    registration("closed", verification="mandatory")
    base = live_server.url
    context, page = new_page(browser, viewport=PHONE, color_scheme="dark")
    csp_errors = collect_csp_errors(page)
    page.goto(f"{base}/accounts/login/")
    single_sign_on(page, base, sso, "frank")

    page.wait_for_url(f"{base}/accounts/3rdparty/signup/")
    assert overflow(page) == 0
    assert axe_violations(page) == [], describe(axe_violations(page))
    assert page.locator('input[name="username"]').input_value() == "frank"  # the provider's preferred_username
    assert page.locator('input[name="password1"]').count() == 0
    page.locator('input[name="email"]').fill("frank@example.org")
    page.locator("main form").get_by_role("button").click()

    page.wait_for_url(f"{base}/accounts/confirm-email/")  # an address typed here is confirmed by mail
    (message,) = mail.outbox
    assert message.to == ["frank@example.org"]
    user = User.objects.get(username="frank")
    assert SocialAccount.objects.get(user=user).provider == PROVIDER_ID
    assert not EmailAddress.objects.get(user=user).verified
    assert csp_errors == []
    context.close()
