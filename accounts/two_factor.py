"""Two-factor sign-in (allauth.mfa) for the password forms outside allauth's own.

/s/login (Lstu's form) and the admin's sign-in check the password themselves, then call Django's
`login`, which would skip allauth's second step. For an account with two-factor on they hand the
browser to that step instead, with what allauth's own form would have recorded; accounts
without it sign in exactly as before.
"""

from allauth.account.internal.flows.login import perform_password_login
from allauth.account.models import Login
from allauth.mfa.models import Authenticator
from allauth.mfa.utils import is_mfa_enabled
from django.contrib.auth.base_user import AbstractBaseUser
from django.http import HttpRequest, HttpResponse


def needs_second_step(user: AbstractBaseUser) -> bool:
    """Whether the account has a TOTP authenticator or a passkey: what allauth's second step asks for."""
    return is_mfa_enabled(user, [Authenticator.Type.TOTP, Authenticator.Type.WEBAUTHN])


def hand_over(request: HttpRequest, user: AbstractBaseUser, next_url: str) -> HttpResponse:
    """Start allauth's sign-in for `user`, whose password was right: its redirect to the second step.

    The person is signed in (and sent on to `next_url`) only once the code or passkey is given
    on /accounts/2fa/authenticate/.
    """
    login = Login(user=user, redirect_url=next_url)
    return perform_password_login(request, {"username": user.get_username()}, login)
