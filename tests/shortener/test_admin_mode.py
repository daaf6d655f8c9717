"""POST /stats: entering and leaving admin mode with the admin password."""

import hashlib

import pytest
import time_machine
from django.contrib.auth.hashers import make_password
from django.test import Client
from rest_framework import status

from shortener import messages
from tests.shortener.asserts import assert_shortener_error, assert_shortener_error_page
from tests.shortener.conftest import ADMIN_PASSWORD
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db


def enter(client: Client, password: str, **extra):
    return client.post("/s/stats", {"adminpwd": password, "_format": "json"}, **extra)


def admin_list_size(client: Client) -> int:
    return len(client.get("/s/stats", {"_format": "json"}).json())


def test_right_password_enters_admin_mode(alice_client, admin_password, other_user):
    ShortLinkFactory(owner=other_user)

    response = enter(alice_client, admin_password)

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "msg": "You have been successfully logged in."}
    assert admin_list_size(alice_client) == 1


def test_wrong_password_is_refused(alice_client, admin_password, other_user):
    ShortLinkFactory(owner=other_user)

    response = enter(alice_client, "wrong")

    assert_shortener_error(response, 403, "Bad password")
    assert admin_list_size(alice_client) == 0


def test_wrong_password_html_shows_own_stats_with_the_message(alice_client, admin_password, user):
    ShortLinkFactory(code="mine", owner=user)

    response = alice_client.post("/s/stats", {"adminpwd": "wrong"})

    page = response.content.decode()
    assert_shortener_error_page(
        response, 403, "Bad password. 2 more tries before this address is banned for 1\N{NO-BREAK SPACE}hour."
    )
    assert "Bad password" in page
    assert "/s/mine" in page
    assert "Your short links" in page


def test_right_password_html_redirects_to_the_stats_page(alice_client, admin_password):
    response = alice_client.post("/s/stats", {"adminpwd": admin_password})

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/s/stats"
    assert "All short links" in alice_client.get("/s/stats").content.decode()


def test_missing_password_is_a_bad_request(alice_client, admin_password):
    response = alice_client.post("/s/stats", {"_format": "json"})

    assert_shortener_error(response, 400, messages.ADMIN_PASSWORD_MISSING)


def test_django_password_hash_setting_is_accepted(alice_client, settings):
    settings.SHORTENER_HASHED_ADMINPWD = make_password("s3cret")

    assert enter(alice_client, "s3cret").json()["success"] is True


def test_lstu_sha256_hex_setting_is_accepted(alice_client, settings):
    settings.SHORTENER_HASHED_ADMINPWD = hashlib.sha256(b"toto").hexdigest()

    assert enter(alice_client, "toto").json()["success"] is True


def test_lstu_sha256_hex_setting_refuses_a_wrong_password(alice_client, settings):
    settings.SHORTENER_HASHED_ADMINPWD = hashlib.sha256(b"toto").hexdigest()

    assert_shortener_error(enter(alice_client, "titi"), 403, "Bad password")


def test_admin_mode_cannot_be_entered_without_a_password_setting(alice_client, settings):
    settings.SHORTENER_ADMINPWD = ""
    settings.SHORTENER_HASHED_ADMINPWD = ""

    response = enter(alice_client, "")
    blank = alice_client.post("/s/stats", {"adminpwd": "anything", "_format": "json"})

    assert_shortener_error(response, 400, messages.ADMIN_PASSWORD_MISSING)
    assert_shortener_error(blank, 403, messages.ADMIN_UNAVAILABLE)


def test_fourth_attempt_after_three_bad_passwords_is_refused(alice_client, admin_password):
    for _ in range(3):
        assert enter(alice_client, "wrong").json()["msg"] == "Bad password"

    response = enter(alice_client, admin_password)

    assert_shortener_error(response, 429, "Too many bad passwords. You're banned.")
    assert response["Retry-After"] == "3600"
    assert admin_list_size(alice_client) == 0


def test_ban_lasts_an_hour(alice_client, admin_password):
    with time_machine.travel("2026-05-01 12:00Z", tick=False) as traveller:
        for _ in range(3):
            enter(alice_client, "wrong")
        traveller.shift(59 * 60)
        assert_shortener_error(enter(alice_client, admin_password), 429, messages.TOO_MANY_BAD_PASSWORDS)
        traveller.shift(61 * 60)

        response = enter(alice_client, admin_password)

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "msg": "You have been successfully logged in."}


def test_ban_is_per_client_address(alice_client, bob_client, admin_password):
    for _ in range(3):
        enter(alice_client, "wrong", REMOTE_ADDR="192.0.2.1")

    response = enter(bob_client, admin_password, REMOTE_ADDR="192.0.2.2")

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "msg": "You have been successfully logged in."}


def test_right_password_clears_earlier_bad_attempts(alice_client, admin_password):
    enter(alice_client, "wrong")
    enter(alice_client, "wrong")
    enter(alice_client, admin_password)

    for _ in range(3):
        response = enter(alice_client, "wrong")

    assert response.json()["msg"] == "Bad password"


def test_ban_html_shows_the_message(alice_client, admin_password):
    for _ in range(3):
        alice_client.post("/s/stats", {"adminpwd": "wrong"})

    response = alice_client.post("/s/stats", {"adminpwd": "wrong"})

    assert_shortener_error_page(response, 429, messages.TOO_MANY_BAD_PASSWORDS)


def test_action_logout_leaves_admin_mode(admin_mode_client, other_user):
    ShortLinkFactory(owner=other_user)

    response = admin_mode_client.post("/s/stats", {"action": "logout", "_format": "json"})

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "msg": "You have been successfully logged out."}
    assert admin_list_size(admin_mode_client) == 0
    assert admin_mode_client.session.get("_auth_user_id")  # still logged in


def test_action_logout_succeeds_when_not_admin(alice_client):
    response = alice_client.post("/s/stats", {"action": "logout", "_format": "json"})

    assert response.json() == {"success": True, "msg": messages.LOGOUT_OK}


def test_action_logout_html_redirects_to_the_stats_page(admin_mode_client):
    response = admin_mode_client.post("/s/stats", {"action": "logout"})

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/s/stats"


def test_admin_mode_needs_login(client, admin_password):
    response = enter(client, admin_password)

    assert_shortener_error(response, 401, messages.LOGIN_REQUIRED)


def test_admin_mode_expires_after_an_hour(alice_client, admin_password, other_user):
    ShortLinkFactory(owner=other_user)
    with time_machine.travel("2026-05-01 12:00Z", tick=False) as traveller:
        enter(alice_client, admin_password)
        traveller.shift(3601)

        size = admin_list_size(alice_client)

    assert size == 0


def test_entering_admin_mode_changes_the_session_key(alice_client, admin_password):
    before = alice_client.session.session_key

    enter(alice_client, admin_password)

    assert alice_client.session.session_key != before


def test_html_admin_form_needs_the_csrf_token(user, admin_password):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)

    response = client.post("/s/stats", {"adminpwd": ADMIN_PASSWORD})

    assert_shortener_error_page(response, 403, messages.CSRF_FAILED)


def test_removing_the_password_setting_ends_admin_mode(admin_mode_client, settings, other_user):
    ShortLinkFactory(owner=other_user)

    settings.SHORTENER_ADMINPWD = ""

    assert admin_list_size(admin_mode_client) == 0
