"""Which sessions each user is signed in with, so that disabling an account can end them at once.

Every sign-in (Django's login(): any page, the admin, /s/login, single sign-on) records its
session's key, and signing out forgets it. Ending a user's sessions deletes those through the
session engine (a cached copy goes too). Sessions signed in before this index existed are not
in it; the database backend refuses an inactive user's session anyway, so only another backend's
(LDAP's) old sessions would outlive a disabling until they expire.
"""

import random
from collections.abc import Iterable
from datetime import timedelta
from importlib import import_module

from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.contrib.sessions.models import Session
from django.dispatch import receiver
from django.http import HttpRequest
from django.utils import timezone

from accounts.models import SignedInSession

# Now and then a sign-in forgets the entries of sessions that have since gone.
PRUNE_CHANCE = 0.01


def session_key_of(request: HttpRequest | None) -> str | None:
    return getattr(getattr(request, "session", None), "session_key", None)


@receiver(user_logged_in, dispatch_uid="accounts.sessions.record")
def record_sign_in(sender: object, request: HttpRequest | None, user: object, **kwargs) -> None:
    # login() has already given the session its new key (cycle_key) and saved it.
    key = session_key_of(request)
    if key is None:
        return
    SignedInSession.objects.bulk_create([SignedInSession(session_key=key, user_id=user.pk)], ignore_conflicts=True)
    if random.random() < PRUNE_CHANCE:
        old = timezone.now() - timedelta(seconds=settings.SESSION_COOKIE_AGE)
        SignedInSession.objects.filter(signed_in_at__lt=old).exclude(
            session_key__in=Session.objects.values("session_key")
        ).delete()


@receiver(user_logged_out, dispatch_uid="accounts.sessions.forget")
def forget_sign_out(sender: object, request: HttpRequest | None, user: object, **kwargs) -> None:
    key = session_key_of(request)
    if key is not None:
        SignedInSession.objects.filter(session_key=key).delete()


def end_sessions(user_pks: Iterable[int]) -> int:
    """End every recorded session of these users; how many."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    keys = list(SignedInSession.objects.filter(user_id__in=list(user_pks)).values_list("session_key", flat=True))
    for key in keys:
        store(session_key=key).delete()
    SignedInSession.objects.filter(session_key__in=keys).delete()
    return len(keys)
