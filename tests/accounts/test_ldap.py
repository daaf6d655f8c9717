"""Signing in with LDAP credentials (Lstu's `ldap` settings), against a real slapd.

/s/login as Lstu's clients use it (JSON and HTML), django.contrib.auth.authenticate() as every
other sign-in calls it, and the admin's login, which stays closed to people who are not staff.
"""

import socket
import time
from contextlib import closing

import pytest
from django.contrib.auth import authenticate, get_user_model
from rest_framework import status

from shortener import messages
from tests.accounts.settings_process import settings_in_a_new_process
from tests.ldap_server import BIND_DN, PEOPLE, ldap_server, require_python_ldap, use_directory  # noqa: F401 (the fixture)
from tests.shortener.asserts import assert_shortener_error

pytestmark = pytest.mark.django_db


@pytest.fixture
def directory(settings, ldap_server):  # noqa: F811 (the fixture imported above)
    use_directory(settings, ldap_server.ldap_uri)
    return ldap_server


def login(client, username: str, password: str, **extra: str):
    return client.post("/s/login", {"login": username, "password": password, "_format": "json", **extra})


def test_first_ldap_sign_in_makes_the_account_from_the_directory(client, directory):
    response = login(client, "ada", "ada-ldap-password")

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "msg": messages.LOGIN_OK}
    ada = get_user_model().objects.get(username="ada")
    assert (ada.email, ada.first_name, ada.last_name) == ("ada@example.org", "Ada", "Lovelace")
    assert not ada.has_usable_password()
    assert (ada.is_staff, ada.is_superuser, ada.is_active) == (False, False, True)
    assert client.session["_auth_user_id"] == str(ada.pk)
    # Signed in as Lstu's test 29 then does: shorten a URL.
    created = client.post("/s/a", {"lsturl": "https://lstu.fr", "_format": "json"})
    assert created.status_code == status.HTTP_200_OK, created.content
    assert created.json()["success"] is True


def test_ldap_sign_in_with_the_html_form_redirects(client, directory):
    response = client.post("/s/login", {"login": "grace", "password": "grace-ldap-password"})

    assert response.status_code == status.HTTP_302_FOUND
    assert get_user_model().objects.get(username="grace").email == "grace@example.org"


def test_wrong_ldap_password_fails_as_a_wrong_local_password_does(client, directory, user):
    wrong_ldap = login(client, "ada", "not-her-password")
    wrong_local = login(client, "alice", "not-her-password")
    unknown = login(client, "nobody", "whatever")

    for response in (wrong_ldap, wrong_local, unknown):
        assert_shortener_error(response, 401, messages.LOGIN_FAILED)
    assert not get_user_model().objects.filter(username="ada").exists()
    assert "_auth_user_id" not in client.session


def test_wrong_ldap_password_on_the_html_form_shows_the_login_page_again(client, directory):
    response = client.post("/s/login", {"login": "ada", "password": "not-her-password"})

    assert response.status_code == status.HTTP_401_UNAUTHORIZED
    assert messages.LOGIN_FAILED in response.content.decode()


def test_a_later_sign_in_updates_the_account_from_the_directory(client, directory):
    assert login(client, "edsger", "edsger-ldap-password").status_code == status.HTTP_200_OK
    directory.modify(f"uid=edsger,{PEOPLE}", mail="ewd@example.org", sn="Dijkstra-Sterk")
    try:
        client.get("/s/logout")
        assert login(client, "edsger", "edsger-ldap-password").status_code == status.HTTP_200_OK
    finally:
        directory.modify(f"uid=edsger,{PEOPLE}", mail="edsger@example.org", sn="Dijkstra")

    edsger = get_user_model().objects.get(username="edsger")
    assert (edsger.email, edsger.last_name) == ("ewd@example.org", "Dijkstra-Sterk")
    assert get_user_model().objects.filter(username="edsger").count() == 1


def test_the_login_in_other_case_is_the_same_account(client, directory):
    assert login(client, "Grace", "grace-ldap-password").status_code == status.HTTP_200_OK
    client.get("/s/logout")
    assert login(client, "GRACE", "grace-ldap-password").status_code == status.HTTP_200_OK

    assert list(get_user_model().objects.values_list("username", flat=True)) == ["grace"]


def test_a_local_user_still_signs_in_with_their_password(client, directory, user):
    response = login(client, "alice", "alice-password")

    assert response.status_code == status.HTTP_200_OK
    assert client.session["_auth_user_id"] == str(user.pk)


def test_the_user_filter_keeps_people_out_as_lstu_does(client, directory):
    # Right password, but (&(uid=mallory)(!(employeeType=left))) finds no one.
    response = login(client, "mallory", "mallory-ldap-password")

    assert_shortener_error(response, 401, messages.LOGIN_FAILED)
    assert not get_user_model().objects.filter(username="mallory").exists()


def test_without_the_bind_user_the_directory_hides_its_people(client, settings, ldap_server):  # noqa: F811
    # This directory lets anonymous clients bind but not search, as many do: LDAP_BIND_DN is used.
    use_directory(settings, ldap_server.ldap_uri, bind_dn="", bind_password="")

    response = login(client, "ada", "ada-ldap-password")

    assert_shortener_error(response, 401, messages.LOGIN_FAILED)


def trust(settings, ca_file: str) -> None:
    """Check the directory's certificate against `ca_file` (a new TLS context, so that it applies)."""
    import ldap

    settings.AUTH_LDAP_CONNECTION_OPTIONS = {
        **settings.AUTH_LDAP_CONNECTION_OPTIONS,
        ldap.OPT_X_TLS_REQUIRE_CERT: ldap.OPT_X_TLS_DEMAND,
        ldap.OPT_X_TLS_CACERTFILE: ca_file,
        ldap.OPT_X_TLS_NEWCTX: 0,
    }


def test_start_tls_signs_in_over_tls(client, settings, ldap_server):  # noqa: F811
    use_directory(settings, ldap_server.ldap_uri, start_tls=True)
    trust(settings, ldap_server.cafile)  # slapdtest's test CA, which signed slapd's certificate

    response = login(client, "ada", "ada-ldap-password")

    assert response.status_code == status.HTTP_200_OK, response.content


def test_start_tls_with_a_certificate_not_trusted_fails_the_sign_in(client, settings, ldap_server):  # noqa: F811
    use_directory(settings, ldap_server.ldap_uri, start_tls=True)
    trust(settings, ldap_server.clientcert)  # not a CA: slapd's certificate cannot be checked

    response = login(client, "ada", "ada-ldap-password")

    assert_shortener_error(response, 401, messages.LOGIN_FAILED)


def test_authenticate_accepts_ldap_credentials(rf, directory):
    user = authenticate(rf.post("/accounts/login/"), username="grace", password="grace-ldap-password")

    assert user is not None
    assert user.username == "grace"
    assert user.backend == "django_auth_ldap.backend.LDAPBackend"
    assert authenticate(rf.post("/accounts/login/"), username="grace", password="wrong") is None


def test_the_admin_refuses_ldap_users_who_are_not_staff(client, directory):
    response = client.post(
        "/admin/login/?next=/admin/", {"username": "ada", "password": "ada-ldap-password", "next": "/admin/"}
    )

    assert response.status_code == status.HTTP_200_OK  # the form again, with its error
    assert "for a staff account" in response.content.decode()
    assert "_auth_user_id" not in client.session
    assert client.get("/admin/").status_code == status.HTTP_302_FOUND  # to the admin's login


def unreachable_address() -> tuple[str, socket.socket]:
    """An LDAP URI whose server accepts connections and never answers (a hung slapd), and its socket."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)  # the kernel completes the handshakes; nothing ever reads or answers
    return f"ldap://127.0.0.1:{sock.getsockname()[1]}", sock


def test_a_hung_ldap_server_gives_a_quick_failed_sign_in(client, settings, user):
    uri, sock = unreachable_address()
    with closing(sock):
        use_directory(settings, uri, timeout=1.0)
        started = time.monotonic()
        response = login(client, "ada", "ada-ldap-password")
        elapsed = time.monotonic() - started

    assert_shortener_error(response, 401, messages.LOGIN_FAILED)
    assert elapsed < 5, elapsed
    # Local accounts are not held up: their password is checked before the directory is asked.
    assert login(client, "alice", "alice-password").status_code == status.HTTP_200_OK


def test_a_stopped_ldap_server_gives_a_failed_sign_in(client, settings):
    with closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: connections to it are refused
    use_directory(settings, f"ldap://127.0.0.1:{port}", timeout=1.0)

    html = client.post("/s/login", {"login": "ada", "password": "ada-ldap-password"})
    json = login(client, "ada", "ada-ldap-password")

    assert html.status_code == status.HTTP_401_UNAUTHORIZED
    assert messages.LOGIN_FAILED in html.content.decode()
    assert_shortener_error(json, 401, messages.LOGIN_FAILED)


def test_without_ldap_uri_nothing_of_ldap_is_loaded():
    result = settings_in_a_new_process(
        "print(settings.AUTHENTICATION_BACKENDS, 'ldap' in sys.modules, hasattr(settings, 'AUTH_LDAP_SERVER_URI'))"
    )

    assert result.returncode == 0, result.stderr
    backends, ldap_imported, ldap_configured = result.stdout.rsplit(maxsplit=2)
    assert "LDAP" not in backends and "django.contrib.auth.backends.ModelBackend" in backends
    assert (ldap_imported, ldap_configured) == ("False", "False")


def test_lstu_settings_become_django_auth_ldap_settings():
    require_python_ldap()
    result = settings_in_a_new_process(
        "print(settings.AUTHENTICATION_BACKENDS[-1]); s = settings.AUTH_LDAP_USER_SEARCH;"
        " print(s.base_dn, s.filterstr, sep='|'); print(settings.AUTH_LDAP_BIND_DN)",
        LDAP_URI="ldaps://ldap.example.org",
        LDAP_USER_TREE="ou=users,dc=example,dc=org",
        LDAP_BIND_DN=BIND_DN,
        LDAP_BIND_PASSWORD="secret",
        LDAP_USER_ATTR="mail",
        LDAP_USER_FILTER="!(uid=ldap_user)",  # Lstu's example before 0.12, without the parentheses
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "django_auth_ldap.backend.LDAPBackend",
        "ou=users,dc=example,dc=org|(&(mail=%(user)s)(!(uid=ldap_user)))",
        BIND_DN,
    ]


def test_ldap_uri_without_a_user_tree_stops_start_up():
    result = settings_in_a_new_process("", LDAP_URI="ldap://ldap.example.org")

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "LDAP_USER_TREE" in result.stderr
