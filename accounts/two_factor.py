"""Two-factor sign-in (allauth.mfa): the password forms outside allauth's own, and limits on guessing codes.

/s/login (Lstu's form) and the admin's sign-in check the password themselves, then call Django's
`login`, which would skip allauth's second step. For an account with two-factor on they hand the
browser to that step instead, with what allauth's own form would have recorded; accounts
without it sign in exactly as before.
"""

from allauth.account.internal.flows.login import perform_password_login
from allauth.account.models import Login
from allauth.core import context
from allauth.mfa.base.forms import AuthenticateForm as AllauthAuthenticateForm
from allauth.mfa.models import Authenticator
from allauth.mfa.utils import is_mfa_enabled
from allauth.mfa.webauthn.forms import AddWebAuthnForm as AllauthAddWebAuthnForm
from django import forms
from django.contrib.auth.base_user import AbstractBaseUser
from django.http import HttpRequest, HttpResponse
from django.utils.translation import pgettext_lazy

from accounts import signin_limits
from accounts.models import SignInFailures


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


class AuthenticateForm(AllauthAuthenticateForm):
    """allauth's second step (settings.MFA_FORMS), whose wrong codes count as failed sign-ins.

    allauth limits wrong codes with its "login_failed" rate limit, which this site turns off
    (settings.ACCOUNT_RATE_LIMITS: failures are counted in the database instead). Without this,
    someone who knows the password could try codes without end. A wrong code (TOTP or recovery)
    counts for the account and the address as a wrong password does (accounts/signin_limits.py);
    while either is locked no code is checked, and the password step is refused too.
    """

    def clean_code(self) -> str:
        keys = {SignInFailures.Kind.ACCOUNT: f"user:{self.user.pk}"}
        if context.request is not None:
            keys[SignInFailures.Kind.ADDRESS] = signin_limits.address_key(context.request)
        seconds = signin_limits.locked_for(keys)
        if seconds is not None:
            raise forms.ValidationError(signin_limits.locked_message(seconds))
        try:
            return super().clean_code()
        except forms.ValidationError:
            for kind, key in keys.items():
                signin_limits.count_failure(kind, key)
            raise


class AddWebAuthnForm(AllauthAddWebAuthnForm):
    """allauth's form to add a passkey (settings.MFA_FORMS), its name field labelled in the reader's
    language: Django makes the label from the field's name, in English."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["name"].label = pgettext_lazy("passkey", "Name")
