"""Signed-in sessions (issue 44, item 3 "Security" and item 6): /accounts/sessions/ lists where a person is
signed in and signs out everywhere else; every way of signing in is recorded (allauth's form, Lstu's
/s/login, the admin's), so that disabling the account in the admin ends them all at once; and keeping
"last seen" costs no query to anonymous requests, short-link redirects or requests by API key."""

import pytest
from allauth.usersessions.models import UserSession
from django.conf import settings as django_settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework import status

from accounts.sessions import SEEN_MARK
from reports.models import ApiKey as ReportsApiKey
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

PAGE = "/accounts/sessions/"
PHONE_BROWSER = "Mozilla/5.0 (Linux; Android 14) Firefox/140.0"
DESKTOP_BROWSER = "Mozilla/5.0 (X11; Linux x86_64) Chromium/142.0"
USERS_URL = "/admin/auth/user/"


def signed_in(login: str, password: str, *, user_agent: str = DESKTOP_BROWSER, address: str = "198.51.100.7") -> Client:
    """A browser signed in through the site's form, from its own address."""
    client = Client(HTTP_USER_AGENT=user_agent, REMOTE_ADDR=address)
    response = client.post("/accounts/login/", {"login": login, "password": password})
    assert response.status_code == status.HTTP_302_FOUND, response.content[:500]
    return client


def signed_in_through_lstu(login: str, password: str, address: str = "203.0.113.9") -> Client:
    client = Client(HTTP_USER_AGENT="lstu-client/1.0", REMOTE_ADDR=address)
    response = client.post("/s/login", {"login": login, "password": password, "_format": "json"})
    assert response.json()["success"] is True
    return client


def signed_in_as(client: Client) -> str | None:
    return client.get("/s/login", {"_format": "json"}).json()["user"]


def sessions_of(user) -> list[UserSession]:
    return list(UserSession.objects.filter(user=user).order_by("created_at"))


# --- the page ------------------------------------------------------------------


def test_the_owner_sees_each_session_with_its_browser_and_address(user):
    phone = signed_in("alice", "alice-password", user_agent=PHONE_BROWSER, address="198.51.100.7")
    signed_in("alice", "alice-password", user_agent=DESKTOP_BROWSER, address="2001:db8::1")

    response = phone.get(PAGE)

    body = response.content.decode()
    assert response.status_code == status.HTTP_200_OK
    assert '<nav class="site-nav" aria-label="Site">' in body  # in the site's layout
    assert PHONE_BROWSER in body and DESKTOP_BROWSER in body
    assert "198.51.100.7" in body and "2001:db8::1" in body
    assert "Last seen" in body
    assert body.count("This session") == 1
    assert PHONE_BROWSER in body[body.index('<tr class="current">') :].split("</tr>", 1)[0]
    assert "Sign out everywhere else" in body


def test_another_user_sees_only_their_own_sessions(user, other_user):
    signed_in("alice", "alice-password", user_agent=PHONE_BROWSER)
    bob = signed_in("bob", "bob-password", user_agent=DESKTOP_BROWSER)

    body = bob.get(PAGE).content.decode()

    assert DESKTOP_BROWSER in body
    assert PHONE_BROWSER not in body


def test_anonymous_is_sent_to_sign_in_and_back(client):
    response = client.get(PAGE)

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == f"/accounts/login/?next={PAGE}"


def test_signing_out_everywhere_else_ends_the_other_sessions_only(user, other_user):
    here = signed_in("alice", "alice-password", user_agent=DESKTOP_BROWSER)
    there = signed_in("alice", "alice-password", user_agent=PHONE_BROWSER)
    lstu = signed_in_through_lstu("alice", "alice-password")
    bob = signed_in("bob", "bob-password")

    response = here.post(PAGE, follow=True)

    assert response.status_code == status.HTTP_200_OK
    assert response.redirect_chain[-1][0] == PAGE
    assert signed_in_as(here) == "alice"
    assert signed_in_as(there) is None
    assert signed_in_as(lstu) is None
    assert there.get(PAGE)["Location"] == f"/accounts/login/?next={PAGE}"
    assert [session.user_agent for session in sessions_of(user)] == [DESKTOP_BROWSER]
    assert signed_in_as(bob) == "bob"  # nobody else's


def test_signing_out_forgets_the_session(user):
    alice = signed_in("alice", "alice-password")
    assert len(sessions_of(user)) == 1

    alice.post("/accounts/logout/")

    assert sessions_of(user) == []


# --- every way of signing in is recorded ----------------------------------------


def test_a_sign_in_through_the_site_s_form_is_recorded_with_its_browser_and_address(user):
    alice = signed_in("alice", "alice-password", user_agent=PHONE_BROWSER, address="198.51.100.7")

    (session,) = sessions_of(user)
    assert session.session_key == alice.cookies[django_settings.SESSION_COOKIE_NAME].value
    assert (session.ip, session.user_agent) == ("198.51.100.7", PHONE_BROWSER)


def test_a_sign_in_through_lstu_s_login_is_recorded(user):
    lstu = signed_in_through_lstu("alice", "alice-password", address="203.0.113.9")

    (session,) = sessions_of(user)
    assert session.session_key == lstu.cookies[django_settings.SESSION_COOKIE_NAME].value
    assert (session.ip, session.user_agent) == ("203.0.113.9", "lstu-client/1.0")


def test_a_sign_in_to_the_admin_is_recorded(admin_user):
    staff = Client(HTTP_USER_AGENT=DESKTOP_BROWSER, REMOTE_ADDR="192.0.2.4")

    response = staff.post("/admin/login/", {"username": "admin", "password": "password", "next": "/admin/"})

    assert response.status_code == status.HTTP_302_FOUND
    (session,) = sessions_of(admin_user)
    assert session.session_key == staff.cookies[django_settings.SESSION_COOKIE_NAME].value
    assert session.ip == "192.0.2.4"


def test_a_session_signed_in_before_sessions_were_recorded_is_recorded_at_its_next_page(user):
    alice = signed_in("alice", "alice-password")
    UserSession.objects.all().delete()
    session = alice.session
    session[SEEN_MARK] = 0
    session.save()

    alice.get("/accounts/")

    (recorded,) = sessions_of(user)
    assert recorded.session_key == alice.cookies[django_settings.SESSION_COOKIE_NAME].value


def test_a_session_whose_user_is_gone_is_simply_signed_out(user):
    alice = signed_in("alice", "alice-password")
    session = alice.session
    session[SEEN_MARK] = 0
    session.save()
    user.delete()

    response = alice.get("/accounts/")

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/accounts/login/?next=/accounts/"
    assert UserSession.objects.count() == 0


def test_last_seen_moves_at_most_once_in_a_while(user):
    alice = signed_in("alice", "alice-password", address="198.51.100.7")
    UserSession.objects.update(last_seen_at="2026-01-01T00:00:00Z")

    alice.get("/accounts/", REMOTE_ADDR="198.51.100.8")  # the mark of the sign-in is recent: nothing written
    assert UserSession.objects.get().last_seen_at.year == 2026 and UserSession.objects.get().ip == "198.51.100.7"
    session = alice.session
    session[SEEN_MARK] = 0
    session.save()
    alice.get("/accounts/", REMOTE_ADDR="198.51.100.8")

    seen = UserSession.objects.get()
    assert seen.last_seen_at.month != 1 or seen.last_seen_at.day != 1
    assert seen.ip == "198.51.100.8"


# --- disabling ends them all ----------------------------------------------------


def test_disabling_ends_sessions_made_through_the_form_and_through_lstu(admin_client, user, other_user):
    form = signed_in("alice", "alice-password")
    lstu = signed_in_through_lstu("alice", "alice-password")
    bob = signed_in("bob", "bob-password")

    response = admin_client.post(USERS_URL, {"action": "disable_selected", "_selected_action": [user.pk]}, follow=True)

    assert "Disabled 1 user." in response.content.decode()
    assert signed_in_as(form) is None
    assert signed_in_as(lstu) is None
    assert sessions_of(user) == []
    assert signed_in_as(bob) == "bob"


# --- what keeping "last seen" costs the others ------------------------------------


def queries(send, *args, **kwargs) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = send(*args, **kwargs)
    assert response.status_code < 400, response.content[:300]
    return len(captured)


@pytest.fixture
def without_tracking(settings):
    """Switch the middleware off (then back on) for a comparison; clients made inside see the change."""

    def switch(on: bool) -> None:
        middleware = [name for name in settings.MIDDLEWARE if name != "accounts.sessions.SessionActivityMiddleware"]
        if on:
            middleware.insert(middleware.index("allauth.account.middleware.AccountMiddleware") + 1, TRACKING)
        settings.MIDDLEWARE = middleware

    return switch


TRACKING = "accounts.sessions.SessionActivityMiddleware"


def test_tracking_adds_no_query_to_a_redirect_anonymous_or_signed_in(user, without_tracking):
    ShortLinkFactory(code="abc")
    ShortLinkFactory(code="def")
    alice = signed_in("alice", "alice-password")
    session = alice.session
    session[SEEN_MARK] = 0  # "last seen" is due: still not written by a redirect, which never reads the session
    session.save()
    counts = {}
    for on in (False, True):
        without_tracking(on)
        anonymous = Client()
        cookie = alice.cookies[django_settings.SESSION_COOKIE_NAME].value
        signed = Client()
        signed.cookies[django_settings.SESSION_COOKIE_NAME] = cookie
        code = "abc" if on else "def"  # each first visit of a code, as uncached as the other
        counts[on] = (queries(anonymous.get, f"/s/{code}"), queries(signed.get, f"/s/{code}"))

    assert counts[True] == counts[False]
    assert TRACKING in django_settings.MIDDLEWARE


def test_tracking_adds_no_query_to_an_api_request_by_key(user, without_tracking):
    key = ReportsApiKey.issue(user=user)[1]
    counts = {}
    for on in (False, True):
        without_tracking(on)
        client = Client(HTTP_AUTHORIZATION=f"Bearer {key}")
        client.get("/api/v1/reports")  # the key's last use is recorded once a minute: out of the way first
        counts[on] = queries(client.get, "/api/v1/reports")

    assert counts[True] == counts[False]
