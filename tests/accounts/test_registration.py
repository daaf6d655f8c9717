"""Registration (issue 44, item 2): ACCOUNTS_REGISTRATION open / invite / closed, email verification
by ACCOUNTS_EMAIL_VERIFICATION, and answers that never tell whether an account exists."""

from urllib.parse import urlsplit

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core import mail
from rest_framework import status

from tests.accounts.conftest import STRONG_PASSWORD, last_mail_to, links_in, signup_data

pytestmark = pytest.mark.django_db

User = get_user_model()


def path_of(url: str) -> str:
    return urlsplit(url).path


def confirm_link(address: str) -> str:
    links = [path_of(link) for link in links_in(last_mail_to(address)) if "/accounts/confirm-email/" in link]
    assert len(links) == 1, links
    return links[0]


def signed_in_as(client) -> str | None:
    body = client.get("/").content.decode()
    if "Signed in as <strong>" not in body:
        return None
    return body.split("Signed in as <strong>", 1)[1].split("</strong>", 1)[0]


# --- open, with mandatory verification (the default) ---------------------------------------------


def test_open_sign_up_mails_a_confirmation_then_signs_in_by_username_or_email_back_to_next(client, registration):
    registration("open")

    page = client.get("/accounts/signup/?next=/pastes/new")
    assert page.status_code == status.HTTP_200_OK
    for field in ("username", "email", "password1", "password2"):
        assert f'name="{field}"' in page.content.decode()

    response = client.post("/accounts/signup/", signup_data(next="/pastes/new"))

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/accounts/confirm-email/"
    assert signed_in_as(client) is None  # not before the address is confirmed
    user = User.objects.get(username="newcomer")
    assert user.email == "newcomer@example.org"
    assert user.password.startswith("md5$")  # hashed (tests use a fast hasher; see test_passwords.py)
    assert not EmailAddress.objects.get(user=user).verified

    link = confirm_link("newcomer@example.org")
    assert client.get(link).status_code == status.HTTP_200_OK
    confirmed = client.post(link)
    assert confirmed["Location"] == "/pastes/new"  # confirmed in the browser that signed up: signed in
    assert signed_in_as(client) == "newcomer"
    assert EmailAddress.objects.get(user=user).verified

    for login in ("newcomer", "newcomer@example.org"):
        client.logout()
        response = client.post("/accounts/login/", {"login": login, "password": STRONG_PASSWORD, "next": "/pastes/new"})
        assert response["Location"] == "/pastes/new", login
        assert signed_in_as(client) == "newcomer"


def test_signing_in_before_confirming_is_held(client, registration):
    registration("open")
    client.post("/accounts/signup/", signup_data())

    response = client.post("/accounts/login/", {"login": "newcomer", "password": STRONG_PASSWORD})

    assert response["Location"] == "/accounts/confirm-email/"
    assert signed_in_as(client) is None


def test_the_confirmation_page_of_an_unknown_key_says_so(client):
    response = client.get("/accounts/confirm-email/not-a-key/")

    assert response.status_code == status.HTTP_200_OK
    assert "expired or is invalid" in response.content.decode()


def test_a_confirmation_link_opened_in_another_browser_confirms_and_leads_to_sign_in(client, registration):
    registration("open")
    client.post("/accounts/signup/", signup_data(next="/pastes/new"))
    elsewhere = type(client)()

    confirmed = elsewhere.post(confirm_link("newcomer@example.org"))

    assert confirmed["Location"] == "/accounts/login/"
    assert signed_in_as(elsewhere) is None
    assert EmailAddress.objects.get(email="newcomer@example.org").verified
    response = elsewhere.post("/accounts/login/", {"login": "newcomer", "password": STRONG_PASSWORD})
    assert response["Location"] == "/"


# --- verification modes ---------------------------------------------------------------------------


def test_optional_verification_signs_in_at_once_and_still_mails_a_confirmation(client, registration):
    registration("open", "optional")

    response = client.post("/accounts/signup/", signup_data(next="/reports/"))

    assert response["Location"] == "/reports/"
    assert signed_in_as(client) == "newcomer"
    assert confirm_link("newcomer@example.org")


def test_no_verification_signs_in_at_once_and_mails_nothing(client, registration):
    registration("open", "none")

    response = client.post("/accounts/signup/", signup_data(next="/reports/"))

    assert response["Location"] == "/reports/"
    assert signed_in_as(client) == "newcomer"
    assert mail.outbox == []


# --- closed ---------------------------------------------------------------------------------------


def test_closed_sign_up_says_so_refuses_the_form_and_writes_nothing(client, registration):
    registration("closed")

    page = client.get("/accounts/signup/")
    response = client.post("/accounts/signup/", signup_data())

    assert "Sign-up closed" in page.content.decode()
    assert "made by its administrators" in page.content.decode()
    assert 'name="password1"' not in page.content.decode()
    assert "Sign-up closed" in response.content.decode()
    assert not User.objects.exists()
    assert not EmailAddress.objects.exists()
    assert mail.outbox == []
    assert signed_in_as(client) is None


def test_closed_is_the_default(settings):
    assert settings.ACCOUNTS_REGISTRATION == "closed"


def test_the_sign_in_page_offers_sign_up_only_while_it_is_open(client, registration):
    registration("closed")
    assert 'href="/accounts/signup/"' not in client.get("/accounts/login/").content.decode()
    assert 'href="/accounts/signup/"' not in client.get("/").content.decode()

    registration("open")
    assert 'href="/accounts/signup/"' in client.get("/accounts/login/").content.decode()
    assert 'href="/accounts/signup/"' in client.get("/").content.decode()


# --- enumeration ----------------------------------------------------------------------------------


def existing_user():
    user = User.objects.create_user(username="known", email="known@example.org", password="known-password")
    EmailAddress.objects.create(user=user, email="known@example.org", verified=True, primary=True)
    return user


def answer(response) -> tuple:
    return response.status_code, response.get("Location"), response.content


def test_sign_up_with_a_known_address_answers_as_with_a_new_one(client, registration):
    registration("open")
    existing_user()

    known = client.post("/accounts/signup/", signup_data(username="other1", email="known@example.org"))
    client.logout()
    new = client.post("/accounts/signup/", signup_data(username="other2", email="fresh@example.org"))

    assert answer(known) == answer(new)
    assert not User.objects.filter(username="other1").exists()  # nothing made for the known address
    assert "already" in last_mail_to("known@example.org").body  # its owner is told, by mail only


def test_password_reset_answers_the_same_for_a_known_and_an_unknown_address(client):
    existing_user()

    known = client.post("/accounts/password/reset/", {"email": "known@example.org"})
    unknown = client.post("/accounts/password/reset/", {"email": "nobody@example.org"})

    assert answer(known) == answer(unknown)
    assert known["Location"] == "/accounts/password/reset/done/"
    assert any("/accounts/password/reset/key/" in link for link in links_in(last_mail_to("known@example.org")))
    assert not any("/key/" in link for link in links_in(last_mail_to("nobody@example.org")))


# --- password reset -------------------------------------------------------------------------------


def test_a_password_reset_by_mail_sets_a_new_password(client):
    existing_user()
    client.post("/accounts/password/reset/", {"email": "known@example.org"})
    (link,) = [path_of(link) for link in links_in(last_mail_to("known@example.org")) if "/key/" in link]

    form = client.get(link, follow=True)
    set_password = form.redirect_chain[-1][0] if form.redirect_chain else link
    response = client.post(set_password, {"password1": STRONG_PASSWORD, "password2": STRONG_PASSWORD})

    assert response["Location"] == "/accounts/password/reset/key/done/"
    client.logout()
    signed = client.post("/accounts/login/", {"login": "known@example.org", "password": STRONG_PASSWORD})
    assert signed["Location"] == "/"
    assert signed_in_as(client) == "known"


# --- rate limit -----------------------------------------------------------------------------------


def test_sign_up_is_rate_limited_per_address(client, registration, settings):
    registration("open")
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "signup": "3/m/ip"}

    answers = [
        client.post("/accounts/signup/", signup_data(username=f"user{n}", email=f"user{n}@example.org")).status_code
        for n in range(4)
    ]
    client.logout()

    assert answers[:3] == [status.HTTP_302_FOUND] * 3
    assert answers[3] == status.HTTP_429_TOO_MANY_REQUESTS
    assert User.objects.count() == 3


# --- the shortener's /s/login (Lstu's clients) -----------------------------------------------------

LSTU_LOGIN = {"login": "newcomer", "password": STRONG_PASSWORD, "_format": "json"}
LSTU_FAILED = {"success": False, "msg": "Please, check your credentials: unable to authenticate."}


def test_s_login_refuses_an_unconfirmed_sign_up_as_a_wrong_password_then_lets_it_in(client, registration):
    registration("open")
    client.post("/accounts/signup/", signup_data())
    link = confirm_link("newcomer@example.org")
    lstu = type(client)()

    refused = lstu.post("/s/login", LSTU_LOGIN)
    wrong = lstu.post("/s/login", {**LSTU_LOGIN, "password": "wrong"})
    client.post(link)
    accepted = lstu.post("/s/login", LSTU_LOGIN)

    assert (refused.status_code, refused.json()) == (wrong.status_code, wrong.json()) == (401, LSTU_FAILED)
    assert accepted.status_code == status.HTTP_200_OK
    assert accepted.json() == {"success": True, "msg": "You have been successfully logged in."}


def test_s_login_lets_an_unconfirmed_sign_up_in_when_verification_is_optional(client, registration):
    registration("open", "optional")
    client.post("/accounts/signup/", signup_data())

    assert type(client)().post("/s/login", LSTU_LOGIN).status_code == status.HTTP_200_OK


# --- email change ---------------------------------------------------------------------------------


def test_an_email_change_takes_effect_once_the_new_address_confirms_it_by_mail(client):
    user = existing_user()
    client.force_login(user)

    response = client.post("/accounts/email/", {"action_add": "", "email": "moved@example.org"})

    assert response.status_code == status.HTTP_302_FOUND
    user.refresh_from_db()
    assert user.email == "known@example.org"  # not before the new address answers
    client.post(confirm_link("moved@example.org"))
    user.refresh_from_db()
    assert user.email == "moved@example.org"
    assert list(EmailAddress.objects.filter(user=user).values_list("email", "verified")) == [
        ("moved@example.org", True)
    ]
