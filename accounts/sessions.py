"""Which sessions each user is signed in with: allauth's `UserSession` (allauth.usersessions).

They are listed at /accounts/sessions/ (address, browser, started, last seen, "sign out everywhere
else"), and disabling an account ends them all at once (accounts/disabling.py). allauth records a
session when someone signs in through its own pages; Django's `user_logged_in` signal here records
every other sign-in too (the admin's, /s/login's, and any code calling login()), at the moment it
happens, so that a disabling right after still finds it. A session's own data is signed and encoded:
without this table one user's sessions could only be found by decoding them all.
"""

import time
from collections.abc import Iterable
from importlib import import_module

from allauth.account.adapter import get_adapter
from allauth.usersessions.models import UserSession
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.core.exceptions import PermissionDenied
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

# The session remembers when its row's "last seen" was last written (a Unix time), so that a
# signed-in person's pages write it once every SEEN_EVERY seconds, not on every request.
SEEN_MARK = "_accounts_session_seen"
SEEN_EVERY = 300
# allauth's table wants an address; a login made in code has none (Django's test client's, a
# management command's): the session is recorded all the same, so that disabling can end it.
NO_ADDRESS = "0.0.0.0"


def user_agent_of(request: HttpRequest) -> str:
    return request.META.get("HTTP_USER_AGENT", "")[: UserSession._meta.get_field("user_agent").max_length]


def session_key_of(request: HttpRequest | None) -> str | None:
    return getattr(getattr(request, "session", None), "session_key", None)


@receiver(user_logged_in, dispatch_uid="accounts.sessions.record")
def record_sign_in(sender: object, request: HttpRequest | None, user: object, **kwargs) -> None:
    # login() has already given the session its new key (cycle_key). allauth's own sign-ins then
    # update this row through its own signal (same key): harmless.
    if session_key_of(request) is None:
        return
    try:
        UserSession.objects.create_from_request(request, user=user)
    except PermissionDenied:
        UserSession.objects.get_or_create(
            session_key=request.session.session_key,
            defaults={"user": user, "ip": NO_ADDRESS, "user_agent": user_agent_of(request)},
        )
    request.session[SEEN_MARK] = int(time.time())


@receiver(user_logged_out, dispatch_uid="accounts.sessions.forget")
def forget_sign_out(sender: object, request: HttpRequest | None, user: object, **kwargs) -> None:
    # Before the session is flushed: its row goes with it rather than waiting for allauth's purge.
    key = session_key_of(request)
    if key is not None:
        UserSession.objects.filter(session_key=key).delete()


def end_sessions(user_pks: Iterable[int]) -> int:
    """End every session of these users (through the session engine, a cached copy too); how many."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    rows = UserSession.objects.filter(user_id__in=list(user_pks))
    keys = list(rows.values_list("session_key", flat=True))
    for key in keys:
        store(session_key=key).delete()
    UserSession.objects.filter(session_key__in=keys).delete()
    return len(keys)


class SessionActivityMiddleware:
    """Keeps "last seen" and the address of a signed-in session up to date, at no cost to others.

    In place of allauth's UserSessionsMiddleware, which reads the user and writes the row on every
    signed-in request. This one looks only after the view, and only at a session the request has
    already loaded: a request without a session cookie (anyone anonymous, every API request by key,
    a short link's redirect) and one whose view never read its session (a redirect followed by a
    signed-in person) cost no query; a signed-in page writes its row once every SEEN_EVERY seconds.
    """

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        session = getattr(request, "session", None)
        if session is None or not session.accessed or not session.session_key:
            return response
        now = int(time.time())
        if session.get(SESSION_KEY) is None or now - session.get(SEEN_MARK, 0) < SEEN_EVERY:
            return response
        # Usually loaded already (every page's header says who is signed in); a session whose user
        # is gone, or whose password changed since, is signed in no more and is not recorded.
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return response
        session[SEEN_MARK] = now
        try:
            address = get_adapter().get_client_ip(request)
        except PermissionDenied:
            address = NO_ADDRESS
        seen = {"last_seen_at": timezone.now(), "ip": address, "user_agent": user_agent_of(request)}
        if not UserSession.objects.filter(session_key=session.session_key).update(**seen):
            # A session signed in before sessions were recorded: from now on it is listed and ended.
            UserSession.objects.get_or_create(session_key=session.session_key, defaults={"user": user, **seen})
        return response
