"""Invitations (ACCOUNTS_REGISTRATION=invite): staff mail a signed link from the admin or with
`manage.py invite EMAIL`; it opens the sign-up form for that address only, once, until it expires."""

from datetime import timedelta
from io import StringIO
from urllib.parse import urlsplit

import pytest
import time_machine
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import CommandError, call_command
from django.utils import timezone
from rest_framework import status

from accounts import invitations
from tests.accounts.conftest import STRONG_PASSWORD, last_mail_to, links_in, signup_data

pytestmark = pytest.mark.django_db

User = get_user_model()
INVITED = "invited@example.org"


def invitation_path(address: str = INVITED) -> str:
    (link,) = [link for link in links_in(last_mail_to(address)) if "/accounts/invitations/" in link]
    return urlsplit(link).path


def invite_by_command(address: str = INVITED) -> str:
    out = StringIO()
    call_command("invite", address, "--base-url", "https://tools.example", stdout=out, stderr=StringIO())
    return out.getvalue()


def test_manage_py_invite_mails_a_link_that_opens_sign_up_for_that_address_only(client, registration):
    registration("invite")
    assert "Sign-up closed" in client.get("/accounts/signup/").content.decode()  # not without one

    output = invite_by_command()

    message = last_mail_to(INVITED)
    assert message.subject == "[Webtools] You are invited to make an account"
    (link,) = [link for link in links_in(message) if "/accounts/invitations/" in link]
    assert link.startswith("https://tools.example/accounts/invitations/")
    assert f"Invitation mailed to {INVITED}: {link}" in output

    opened = client.get(invitation_path())
    assert opened["Location"] == "/accounts/signup/"
    form = client.get("/accounts/signup/").content.decode()
    assert f'value="{INVITED}"' in form

    other = client.post("/accounts/signup/", signup_data(email="someone.else@example.org"))
    assert other.status_code == status.HTTP_200_OK
    assert f"This invitation is for {INVITED}" in other.content.decode()
    assert not User.objects.exists()

    made = client.post("/accounts/signup/", signup_data(email=INVITED, next="/pastes/"))
    assert made["Location"] == "/pastes/"  # signed in at once: the invitation proved the address
    user = User.objects.get(username="newcomer")
    assert EmailAddress.objects.get(user=user).verified


def test_an_invitation_works_once(client, registration):
    registration("invite")
    invite_by_command()
    path = invitation_path()
    client.get(path)
    client.post("/accounts/signup/", signup_data(email=INVITED))
    client.logout()

    again = client.get(path)

    assert again.status_code == status.HTTP_400_BAD_REQUEST
    assert "This invitation has been used" in again.content.decode()
    assert "Sign-up closed" in client.get("/accounts/signup/").content.decode()
    assert User.objects.count() == 1


def test_a_second_session_with_the_same_link_cannot_sign_up_after_the_first(client, registration):
    registration("invite")
    invite_by_command()
    path = invitation_path()
    client.get(path)
    latecomer = client_class_copy(client)
    latecomer.get(path)
    client.post("/accounts/signup/", signup_data(email=INVITED))

    response = latecomer.post("/accounts/signup/", signup_data(username="second", email=INVITED))

    assert "Sign-up closed" in response.content.decode()
    assert not User.objects.filter(username="second").exists()


def client_class_copy(client):
    return type(client)()


def test_an_invitation_expires_after_accounts_invite_max_age_days(client, registration, settings):
    registration("invite")
    settings.ACCOUNTS_INVITE_MAX_AGE = 2
    invite_by_command()
    path = invitation_path()

    with time_machine.travel(timezone.now() + timedelta(days=2, minutes=1)):
        response = client.get(path)

    assert response.status_code == status.HTTP_400_BAD_REQUEST
    assert "This invitation has expired" in response.content.decode()
    assert "Sign-up closed" in client.get("/accounts/signup/").content.decode()


def test_a_tampered_link_is_refused(client, registration):
    registration("invite")
    token = invitations.make_token(INVITED)

    response = client.get(f"/accounts/invitations/{token[:-2]}xx/")

    assert response.status_code == status.HTTP_400_BAD_REQUEST
    assert "not valid" in response.content.decode()


def test_while_sign_up_is_closed_invitations_are_refused(client, registration):
    registration("closed")

    response = client.get(invitations.invite_path(INVITED))

    assert response.status_code == status.HTTP_403_FORBIDDEN
    assert "Sign-up is closed." in response.content.decode()


def test_manage_py_invite_refuses_an_address_that_has_an_account_or_is_not_one(registration):
    registration("invite")
    User.objects.create_user(username="known", email="Known@example.org", password="x")

    with pytest.raises(CommandError, match="already has the address"):
        invite_by_command("known@example.org")
    with pytest.raises(CommandError, match="is not an email address"):
        invite_by_command("not-an-address")
    assert mail.outbox == []


def test_staff_invite_from_the_admin_s_form(client, registration):
    registration("invite")
    staff = User.objects.create_user(username="staff", password="staff-password", is_staff=True)
    client.force_login(staff)

    page = client.get("/accounts/invitations/new")
    response = client.post("/accounts/invitations/new", {"email": INVITED})

    assert page.status_code == status.HTTP_200_OK
    assert response["Location"] == "/accounts/invitations/new"
    assert invitation_path().startswith("/accounts/invitations/")
    assert 'href="/accounts/invitations/new"' in client.get("/admin/").content.decode()


def test_only_staff_may_invite(client, registration):
    registration("invite")
    client.force_login(User.objects.create_user(username="plain", password="x"))

    response = client.post("/accounts/invitations/new", {"email": INVITED})

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"].startswith("/admin/login/")
    assert mail.outbox == []


def test_the_invited_person_signs_in_afterwards_with_the_password_they_chose(client, registration):
    registration("invite")
    invite_by_command()
    client.get(invitation_path())
    client.post("/accounts/signup/", signup_data(email=INVITED))
    client.logout()

    response = client.post("/accounts/login/", {"login": INVITED, "password": STRONG_PASSWORD})

    assert response["Location"] == "/"
