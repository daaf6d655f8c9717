"""One sign-in for the whole site at /accounts/login/ (issue 44, item 1): by username or email,
back to the page the reader came from, inside the site's own layout."""

import re

import pytest
from django.contrib.auth import get_user_model
from rest_framework import status

pytestmark = pytest.mark.django_db

BROWSER_ACCEPT = "text/html,application/xhtml+xml"


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user(username="alice", email="alice@example.org", password="alice-password")


def test_every_page_s_sign_in_link_goes_to_the_account_area_with_the_page_as_next(client):
    for path in ("/", "/s/", "/api/docs/", "/accounts/password/reset/"):
        body = client.get(path, HTTP_ACCEPT=BROWSER_ACCEPT).content.decode()
        assert f'href="/accounts/login/?next={path}"' in body, path


def test_the_sign_in_page_is_inside_the_site_layout_with_allauth_s_fields(client):
    response = client.get("/accounts/login/?next=/pastes/")

    body = response.content.decode()
    assert response.status_code == status.HTTP_200_OK
    assert '<nav class="site-nav" aria-label="Site">' in body
    assert "css/site.css" in body
    assert 'name="login"' in body and 'name="password"' in body
    assert 'name="next" value="/pastes/"' in body
    assert re.search(r"<title>\s*Sign In\s*· Webtools</title>", body)  # browsers trim the spaces


@pytest.mark.parametrize("login", ["alice", "alice@example.org", "ALICE@example.org"])
def test_signing_in_by_username_or_email_comes_back_to_next(client, alice, login):
    response = client.post("/accounts/login/", {"login": login, "password": "alice-password", "next": "/pastes/new"})

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/pastes/new"
    assert client.get("/pastes/new").status_code == status.HTTP_200_OK
    assert "Signed in as <strong>alice</strong>" in client.get("/").content.decode()


def test_without_next_signing_in_lands_on_the_home_page(client, alice):
    response = client.post("/accounts/login/", {"login": "alice", "password": "alice-password"})

    assert response["Location"] == "/"


@pytest.mark.parametrize("hostile", ["https://evil.example/", "//evil.example/x", "http://testserver.evil.example/"])
def test_a_next_to_another_site_is_ignored(client, alice, hostile):
    response = client.post("/accounts/login/", {"login": "alice", "password": "alice-password", "next": hostile})

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/"


def test_a_wrong_password_is_refused_on_the_form(client, alice):
    response = client.post("/accounts/login/", {"login": "alice", "password": "wrong", "next": "/pastes/"})

    assert response.status_code == status.HTTP_200_OK
    assert "not correct" in response.content.decode()
    assert "Signed in as" not in response.content.decode()


def test_an_account_the_operator_made_signs_in_without_confirming_its_email(client, settings, alice):
    # Mandatory verification holds addresses given at sign-up, not accounts made by the operator.
    assert settings.ACCOUNT_EMAIL_VERIFICATION == "mandatory"

    response = client.post("/accounts/login/", {"login": "alice@example.org", "password": "alice-password"})

    assert response["Location"] == "/"


def test_pages_that_need_a_reader_send_them_to_the_account_area(client):
    for path in ("/pastes/new", "/reports/", "/reports/new"):
        response = client.get(path, HTTP_ACCEPT=BROWSER_ACCEPT)
        assert response["Location"] == f"/accounts/login/?next={path}", path


def test_the_landing_page_offers_the_account_area_s_sign_in(client):
    assert 'href="/accounts/login/"' in client.get("/").content.decode()


def test_s_login_still_signs_in_as_lstu_clients_expect(client, alice):
    response = client.post("/s/login", {"login": "alice", "password": "alice-password", "_format": "json"})

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "msg": "You have been successfully logged in."}
