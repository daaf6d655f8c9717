"""Single sign-on settings (OIDC_*) and ACCOUNTS_PASSWORD_LOGIN=0 without a browser: what each
sign-in path answers when only the provider may sign people in (issue 44, item 4).

The redirect flow itself, against a real provider, is tests/accounts/test_oidc_browser.py.
"""

import json

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core import mail

from accounts.sso_settings import PROVIDER_ID, form_targets, sso_apps
from shortener import messages
from tests.accounts.conftest import signup_data
from tests.accounts.settings_process import settings_in_a_new_process
from tests.foundation.test_deploy_check import PRODUCTION_ENV, run_check

User = get_user_model()
ISSUER = "https://id.acme.example"  # never contacted: these tests stop before the provider


PRINT_SSO = (
    "import json; print(json.dumps([settings.SOCIALACCOUNT_PROVIDERS['openid_connect']['APPS'],"
    " settings.SECURE_CSP['form-action'], settings.ACCOUNTS_PASSWORD_LOGIN]))"
)


def test_without_oidc_issuer_no_provider_is_configured():
    result = settings_in_a_new_process(PRINT_SSO)

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [[], ["'self'"], True]


def test_the_oidc_variables_configure_one_provider_with_its_secret_from_a_file(tmp_path):
    secret_file = tmp_path / "oidc-secret"
    secret_file.write_text("s3cret-from-a-file\n")

    result = settings_in_a_new_process(
        PRINT_SSO,
        OIDC_ISSUER="https://id.acme.example/realms/staff/",
        OIDC_CLIENT_ID="webtools",
        OIDC_CLIENT_SECRET_FILE=str(secret_file),
        OIDC_NAME="Acme",
        ACCOUNTS_PASSWORD_LOGIN="0",
    )

    assert result.returncode == 0, result.stderr
    (app,), form_action, password_login = json.loads(result.stdout)
    assert app == {
        "provider_id": PROVIDER_ID,
        "name": "Acme",
        "client_id": "webtools",
        "secret": "s3cret-from-a-file",
        "settings": {"server_url": "https://id.acme.example/realms/staff"},
    }
    assert form_action == ["'self'", "https://id.acme.example"]  # allauth's "Continue" redirects there
    assert password_login is False


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"OIDC_ISSUER": ISSUER}, "OIDC_CLIENT_ID"),
        ({"OIDC_ISSUER": "id.acme.example", "OIDC_CLIENT_ID": "webtools"}, "OIDC_ISSUER"),
        ({"ACCOUNTS_PASSWORD_LOGIN": "0"}, "ACCOUNTS_PASSWORD_LOGIN=0 needs OIDC_ISSUER"),
        ({"ACCOUNTS_PASSWORD_LOGIN": "perhaps"}, "ACCOUNTS_PASSWORD_LOGIN"),
        (
            {"ACCOUNTS_PASSWORD_LOGIN": "0", "OIDC_ISSUER": ISSUER, "OIDC_CLIENT_ID": "w", "LDAP_URI": "ldap://x"},
            "LDAP_URI signs in with a password",
        ),
    ],
)
def test_a_bad_single_sign_on_setting_stops_start_up_naming_it(env, named):
    result = settings_in_a_new_process("", **{"LDAP_USER_TREE": "ou=people,dc=x", **env})

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert named in result.stderr


def test_check_deploy_is_clean_with_single_sign_on_only():
    result = run_check(
        **PRODUCTION_ENV,
        OIDC_ISSUER=ISSUER,
        OIDC_CLIENT_ID="webtools",
        OIDC_CLIENT_SECRET="s3cret",
        OIDC_NAME="Acme",
        ACCOUNTS_PASSWORD_LOGIN="0",
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout + result.stderr


@pytest.fixture
def sso(settings):
    settings.OIDC_ISSUER = ISSUER
    settings.OIDC_NAME = "Acme"
    settings.SOCIALACCOUNT_PROVIDERS = {
        "openid_connect": {"APPS": sso_apps(issuer=ISSUER, name="Acme", client_id="webtools", secret="s3cret")}
    }
    settings.SECURE_CSP = {**settings.SECURE_CSP, "form-action": ["'self'", *form_targets(ISSUER)]}


@pytest.fixture
def sso_only(sso, settings):
    settings.ACCOUNTS_PASSWORD_LOGIN = False


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


# --- The sign-in page ------------------------------------------------------------


@pytest.mark.django_db
def test_without_a_provider_the_sign_in_page_offers_no_button(client):
    page = client.get("/accounts/login/").content.decode()

    assert "/accounts/oidc/" not in page and "Sign in with Acme" not in page
    assert 'name="password"' in page


@pytest.mark.django_db
def test_the_sign_in_page_offers_the_provider_beside_the_password_form_keeping_next(client, sso):
    page = client.get("/accounts/login/?next=/reports/").content.decode()

    assert 'name="password"' in page
    assert f'href="/accounts/oidc/{PROVIDER_ID}/login/?process=login&amp;next=%2Freports%2F"' in page
    assert "Sign in with Acme" in page


@pytest.mark.django_db
def test_the_confirmation_page_posts_to_the_site_and_names_the_provider(client, sso):
    page = client.get(f"/accounts/oidc/{PROVIDER_ID}/login/?process=login")

    assert page.status_code == 200
    assert "Acme" in page.content.decode()
    assert "https://id.acme.example" in page["Content-Security-Policy"]


@pytest.mark.django_db
def test_single_sign_on_only_shows_the_button_alone(client, sso_only):
    page = client.get("/accounts/login/").content.decode()

    assert 'name="password"' not in page
    assert "sign up" not in page
    assert "Sign in with Acme" in page


@pytest.mark.django_db
def test_single_sign_on_only_refuses_a_password_on_the_sign_in_page(client, user, sso_only):
    response = client.post("/accounts/login/", {"login": "alice", "password": "alice-password"})

    assert response.status_code == 403
    assert "Passwords are not used here" in response.content.decode()
    assert "Sign in with Acme" in response.content.decode()
    assert not signed_in(client)


@pytest.mark.django_db
def test_single_sign_on_only_refuses_password_sign_up_reset_and_change(client, user, sso_only, settings):
    settings.ACCOUNTS_REGISTRATION = "open"
    user.email = "alice@example.org"
    user.save()
    data = signup_data()

    answers = [
        client.get("/accounts/signup/"),
        client.post("/accounts/signup/", data),
        client.get("/accounts/password/reset/"),
        client.post("/accounts/password/reset/", {"email": "alice@example.org"}),
    ]
    client.force_login(user)
    changed = client.post(
        "/accounts/password/change/",
        {"oldpassword": "alice-password", "password1": "orbit-Lantern-42", "password2": "orbit-Lantern-42"},
    )
    answers.append(changed)

    assert [answer.status_code for answer in answers] == [403] * 5
    user.refresh_from_db()
    assert user.check_password("alice-password")
    assert all("Passwords are not used here" in answer.content.decode() for answer in answers)
    assert not User.objects.filter(username=signup_data()["username"]).exists()
    assert mail.outbox == []


@pytest.mark.django_db
def test_single_sign_on_only_checks_no_password_anywhere(rf, user, sso_only):
    assert authenticate(rf.get("/"), username="alice", password="alice-password") is None


@pytest.mark.django_db
def test_with_password_sign_in_on_the_same_passwords_work(client, user, sso):
    response = client.post("/accounts/login/", {"login": "alice", "password": "alice-password"})

    assert response.status_code == 302
    assert signed_in(client)


# --- Lstu's /s/login ---------------------------------------------------------------


@pytest.mark.django_db
def test_s_login_answers_lstu_s_json_failure_when_only_single_sign_on_is_offered(client, user, sso_only):
    response = client.post("/s/login", {"login": "alice", "password": "alice-password", "_format": "json"})

    assert response.status_code == 403
    assert response.json() == {
        "success": False,
        "msg": messages.PASSWORD_LOGIN_OFF.format(provider="Acme", url="http://testserver/accounts/login/"),
    }
    assert not signed_in(client)


@pytest.mark.django_db
def test_s_login_page_says_where_to_sign_in_when_only_single_sign_on_is_offered(client, user, sso_only):
    posted = client.post("/s/login", {"login": "alice", "password": "alice-password", "next": "/s/stats"})
    shown = client.get("/s/login?next=/s/stats")

    assert posted.status_code == 403
    page = posted.content.decode()
    assert "Passwords are not used on this server: sign in with Acme" in page
    assert 'name="password"' not in page
    assert 'href="/accounts/login/?next=/s/stats"' in page
    assert not signed_in(client)
    assert shown.status_code == 302
    assert shown["Location"] == "/accounts/login/?next=/s/stats"


@pytest.mark.django_db
def test_s_login_json_still_tells_who_is_signed_in(client, user, sso_only):
    client.force_login(user)

    answer = client.get("/s/login", {"_format": "json"}).json()

    assert answer["success"] is True
    assert answer["user"] == "alice"


# --- The admin -----------------------------------------------------------------------


@pytest.mark.django_db
def test_the_admin_sends_to_single_sign_on_and_takes_no_password(client, sso_only):
    User.objects.create_superuser("root", "root@example.org", "root-password")

    shown = client.get("/admin/login/?next=/admin/reports/")
    posted = client.post("/admin/login/?next=/admin/", {"username": "root", "password": "root-password"})

    assert shown.status_code == 302
    assert shown["Location"] == "/accounts/login/?next=/admin/reports/"
    assert posted.status_code == 302
    assert posted["Location"] == "/accounts/login/?next=/admin/"
    assert not signed_in(client)


@pytest.mark.django_db
def test_staff_signed_in_by_single_sign_on_reach_the_admin(client, sso_only):
    staff = User.objects.create_user("root", "root@example.org", is_staff=True, is_superuser=True)
    client.force_login(staff, backend="allauth.account.auth_backends.AuthenticationBackend")

    assert client.get("/admin/").status_code == 200


@pytest.mark.django_db
def test_the_account_area_links_single_sign_on_and_not_passwords_when_they_are_off(client, user, sso_only):
    client.force_login(user)

    nav = client.get("/accounts/email/").content.decode()

    assert 'href="/accounts/3rdparty/">Single sign-on</a>' in nav
    assert 'href="/accounts/password/change/"' not in nav


@pytest.mark.django_db
def test_without_a_provider_the_account_area_has_no_single_sign_on_link(client, user):
    client.force_login(user)

    nav = client.get("/accounts/email/").content.decode()

    assert "Single sign-on" not in nav
    assert 'href="/accounts/password/change/"' in nav


@pytest.mark.django_db
def test_the_sign_in_page_reads_the_provider_from_the_settings_without_a_query(client, sso, django_assert_num_queries):
    client.get("/accounts/login/")  # the session and its first queries
    with django_assert_num_queries(0):
        page = client.get("/accounts/login/")

    assert "Sign in with Acme" in page.content.decode()


@pytest.mark.django_db
def test_the_admin_lists_connected_accounts_and_not_allauth_s_app_tables(admin_client):
    index = admin_client.get("/admin/").content.decode()

    assert "/admin/socialaccount/socialaccount/" in index
    assert "/admin/socialaccount/socialapp/" not in index
    assert "/admin/socialaccount/socialtoken/" not in index
