"""POST /login, GET /login, GET /logout and the logged-out page, in JSON and HTML."""

import pytest
from django.test import Client
from rest_framework import status

from shortener import messages
from tests.shortener.asserts import any_number, assert_shortener_error, assert_shortener_error_page

pytestmark = pytest.mark.django_db


def test_login_json_succeeds_with_valid_credentials(client, user):
    response = client.post("/s/login", {"login": "alice", "password": "alice-password", "_format": "json"})

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "msg": "You have been successfully logged in."}
    assert client.session["_auth_user_id"] == str(user.pk)


def test_login_json_refuses_wrong_password(client, user):
    response = client.post("/s/login", {"login": "alice", "password": "nope", "_format": "json"})

    assert_shortener_error(response, 401, messages.LOGIN_FAILED)
    assert "_auth_user_id" not in client.session


def test_login_json_refuses_unknown_user(client, db):
    response = client.post("/s/login", {"login": "nobody", "password": "x", "_format": "json"})

    assert_shortener_error(response, 401, messages.LOGIN_FAILED)


def test_login_json_refuses_inactive_user(client, user):
    user.is_active = False
    user.save()

    response = client.post("/s/login", {"login": "alice", "password": "alice-password", "_format": "json"})

    assert_shortener_error(response, 401, messages.LOGIN_FAILED)


def test_login_json_requires_both_fields(client, user):
    response = client.post("/s/login", {"login": "alice", "_format": "json"})

    assert_shortener_error(response, 400, messages.LOGIN_FIELDS_MISSING)


def test_login_accepts_a_json_body(client, user):
    response = client.post(
        "/s/login", {"login": "alice", "password": "alice-password"}, content_type="application/json"
    )

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "msg": messages.LOGIN_OK}


def test_login_rejects_malformed_json_body(client, user):
    response = client.post("/s/login", "{not json", content_type="application/json")

    assert_shortener_error(response, 400, messages.BAD_JSON)


def test_login_rejects_json_array_body(client, user):
    response = client.post("/s/login", ["alice"], content_type="application/json")

    assert_shortener_error(response, 400, messages.BAD_JSON)


def test_login_rejects_non_string_password(client, user):
    response = client.post("/s/login", {"login": "alice", "password": 12}, content_type="application/json")

    assert_shortener_error(response, 400, 'The field "password" must be a string.')


def test_login_answers_json_when_accept_prefers_it(client, user):
    response = client.post("/s/login", {"login": "alice", "password": "alice-password"}, HTTP_ACCEPT="application/json")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["success"] is True


def test_login_html_redirects_to_the_main_page(client, user):
    response = client.post("/s/login", {"login": "alice", "password": "alice-password"})

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/s/"
    assert client.session["_auth_user_id"] == str(user.pk)


def test_login_html_follows_a_local_next(client, user):
    response = client.post("/s/login?next=/s/stats", {"login": "alice", "password": "alice-password"})

    assert response["Location"] == "/s/stats"


def test_login_html_ignores_an_external_next(client, user):
    response = client.post("/s/login", {"login": "alice", "password": "alice-password", "next": "https://evil.test/"})

    assert response["Location"] == "/s/"


def test_login_html_shows_the_form_again_with_the_message(client, user):
    response = client.post("/s/login", {"login": "alice", "password": "wrong"})

    assert_shortener_error_page(response, 401, messages.LOGIN_FAILED)
    assert 'name="password"' in response.content.decode()


def test_get_login_shows_the_form_with_a_csrf_token(client, db):
    response = client.get("/s/login")

    assert response.status_code == status.HTTP_200_OK
    assert 'name="csrfmiddlewaretoken"' in response.content.decode()
    assert 'name="login"' in response.content.decode()


def test_get_login_sends_a_logged_in_user_to_the_main_page(alice_client):
    response = alice_client.get("/s/login")

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/s/"


def test_login_is_refused_once_the_account_has_too_many_failures(client, user, settings):
    settings.ACCOUNTS_SIGNIN_ACCOUNT_FAILURES = 2
    for _ in range(2):
        client.post("/s/login", {"login": "alice", "password": "wrong", "_format": "json"})

    response = client.post("/s/login", {"login": "alice", "password": "alice-password", "_format": "json"})

    assert_shortener_error(response, 429, any_number(messages.TOO_MANY_LOGINS))
    assert "Retry-After" in response
    assert "_auth_user_id" not in client.session


def test_an_address_locked_by_failures_does_not_touch_other_addresses(client, user, settings):
    settings.ACCOUNTS_SIGNIN_ADDRESS_FAILURES = 1
    client.post("/s/login", {"login": "bob", "password": "wrong", "_format": "json"}, REMOTE_ADDR="10.0.0.1")
    locked = client.post(
        "/s/login", {"login": "alice", "password": "alice-password", "_format": "json"}, REMOTE_ADDR="10.0.0.1"
    )

    response = client.post(
        "/s/login", {"login": "alice", "password": "alice-password", "_format": "json"}, REMOTE_ADDR="10.0.0.2"
    )

    assert_shortener_error(locked, 429, any_number(messages.TOO_MANY_LOGINS))
    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "msg": messages.LOGIN_OK}
    assert client.session["_auth_user_id"] == str(user.pk)


def test_logout_json_succeeds_and_ends_the_session(alice_client):
    response = alice_client.get("/s/logout", {"_format": "json"})

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "msg": "You have been successfully logged out."}
    assert "_auth_user_id" not in alice_client.session


def test_logout_json_succeeds_when_not_logged_in(client, db):
    response = client.get("/s/logout", {"_format": "json"})

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "msg": messages.LOGOUT_OK}


def test_logout_html_redirects_to_the_logged_out_page(alice_client):
    response = alice_client.get("/s/logout")

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/s/logged-out"


def test_logged_out_page_says_so_and_offers_to_sign_in(client, db):
    response = client.get("/s/logged-out")

    assert response.status_code == status.HTTP_200_OK
    assert messages.LOGOUT_OK in response.content.decode()
    assert 'href="/s/login"' in response.content.decode()


def test_logout_refuses_post(alice_client):
    response = alice_client.post("/s/logout", {"_format": "json"})

    assert_shortener_error(response, 405, messages.METHOD_NOT_ALLOWED)


def test_html_login_form_needs_the_csrf_token(user):
    client = Client(enforce_csrf_checks=True)

    response = client.post("/s/login", {"login": "alice", "password": "alice-password"})

    assert_shortener_error_page(response, 403, messages.CSRF_FAILED)
    assert "_auth_user_id" not in client.session


def test_html_login_form_works_with_the_csrf_token(user):
    client = Client(enforce_csrf_checks=True)
    client.get("/s/login")
    token = client.cookies["csrftoken"].value

    response = client.post("/s/login", {"login": "alice", "password": "alice-password", "csrfmiddlewaretoken": token})

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/s/"
    assert client.session["_auth_user_id"] == str(user.pk)


def test_json_login_needs_no_csrf_token(user):
    client = Client(enforce_csrf_checks=True)

    response = client.post("/s/login", {"login": "alice", "password": "alice-password", "_format": "json"})

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "msg": messages.LOGIN_OK}
    assert client.session["_auth_user_id"] == str(user.pk)


def test_json_login_from_another_site_needs_the_csrf_token(user):
    client = Client(enforce_csrf_checks=True)

    response = client.post(
        "/s/login",
        {"login": "alice", "password": "alice-password", "_format": "json"},
        HTTP_ORIGIN="https://evil.test",
    )

    assert_shortener_error(response, 403, messages.CSRF_FAILED)


def test_json_login_marked_cross_site_by_the_browser_needs_the_csrf_token(user):
    client = Client(enforce_csrf_checks=True)

    response = client.post(
        "/s/login",
        {"login": "alice", "password": "alice-password", "_format": "json"},
        HTTP_SEC_FETCH_SITE="cross-site",
    )

    assert_shortener_error(response, 403, messages.CSRF_FAILED)


def test_json_login_from_the_same_origin_needs_no_csrf_token(user):
    client = Client(enforce_csrf_checks=True)

    response = client.post(
        "/s/login",
        {"login": "alice", "password": "alice-password", "_format": "json"},
        HTTP_ORIGIN="http://testserver",
        HTTP_SEC_FETCH_SITE="same-origin",
    )

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "msg": messages.LOGIN_OK}
    assert client.session["_auth_user_id"] == str(user.pk)


def test_login_with_nul_character_is_refused(client, user):
    response = client.post("/s/login", {"login": "ali\x00ce", "password": "x", "_format": "json"})

    assert_shortener_error(response, 400, 'The field "login" must not contain NUL characters.')


def test_head_request_does_not_log_out(alice_client):
    response = alice_client.head("/s/logout")

    assert response.status_code == status.HTTP_405_METHOD_NOT_ALLOWED
    assert "_auth_user_id" in alice_client.session
