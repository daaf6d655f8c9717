"""The authentication backend that goes first: it refuses every password sign-in while locked."""

from django.conf import settings
from django.contrib.auth.backends import BaseBackend, ModelBackend
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

from accounts import signin_limits


class SignInLimitGuard(BaseBackend):
    """First in AUTHENTICATION_BACKENDS: while the account or the address is locked, no password is checked.

    Nor ever with ACCOUNTS_PASSWORD_LOGIN=0 (single sign-on only, accounts/sso.py).

    PermissionDenied stops django.contrib.auth.authenticate() before any other backend (the
    database's, LDAP's) is asked, and makes it send user_login_failed. The lock's remaining
    seconds are left on the request as `signin_locked_for`, for the views that say so.
    Otherwise it authenticates nobody and lets the next backend decide.
    """

    def get_user(self, user_id: int) -> object | None:
        # Signing someone in with no backend named (Django's test client's force_login) names the
        # first one: its sessions find their user as the database's backend would.
        return ModelBackend().get_user(user_id)

    def authenticate(self, request: HttpRequest | None, **credentials: object) -> None:
        if "password" not in credentials:  # a passkey, single sign-on: not a guess at a password
            return None
        if not settings.ACCOUNTS_PASSWORD_LOGIN:  # single sign-on only: no password is checked at all
            raise PermissionDenied
        seconds = signin_limits.locked_for(signin_limits.keys_of(request, credentials))
        if seconds is None:
            return None
        if request is not None:
            request.signin_locked_for = seconds
        raise PermissionDenied
