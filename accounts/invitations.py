"""Invitations to make an account when ACCOUNTS_REGISTRATION is "invite".

An invitation is a signed, timestamped link naming one email address: no table holds it. It
expires after ACCOUNTS_INVITE_MAX_AGE days (the signature's age) and is used up once an account
has that address, which signing up with it makes.
"""

from datetime import timedelta

from allauth.account.adapter import get_adapter
from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.http import HttpRequest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

SALT = "accounts.invitations"
# The address an accepted invitation opened the sign-up form for, in the session.
SESSION_KEY = "accounts_invited_email"


class InvalidInvitation(Exception):
    """The link is not one this site made, has expired, or was used."""


def make_token(email: str) -> str:
    return signing.dumps(email.strip().lower(), salt=SALT)


def invite_path(email: str) -> str:
    return reverse("accounts:invitation", args=[make_token(email)])


def has_account(email: str) -> bool:
    return (
        get_user_model().objects.filter(email__iexact=email).exists()
        or EmailAddress.objects.filter(email__iexact=email).exists()
    )


def invited_email(token: str) -> str:
    """The address the invitation names, if it may still be used."""
    try:
        email = signing.loads(token, salt=SALT, max_age=timedelta(days=settings.ACCOUNTS_INVITE_MAX_AGE))
    except signing.SignatureExpired:
        raise InvalidInvitation(gettext("This invitation has expired: ask for a new one.")) from None
    except signing.BadSignature:
        raise InvalidInvitation(gettext("This invitation link is not valid: check that it was copied whole.")) from None
    if has_account(email):
        raise InvalidInvitation(gettext("This invitation has been used: sign in, or reset your password."))
    return email


def send_invitation(email: str, base_url: str, language: str | None = None) -> str:
    """Mail the invitation to `email` in `language` (else the active one); the link too, for the operator."""
    link = f"{base_url.rstrip('/')}{invite_path(email)}"
    context = {
        "invite_url": link,
        "max_age_days": settings.ACCOUNTS_INVITE_MAX_AGE,
        "service_name": settings.SERVICE_NAME,
    }
    # render_mail, not send_mail: allauth's send_mail needs a request, which `manage.py invite` has not.
    with translation.override(language or translation.get_language()):
        message = get_adapter().render_mail("accounts/email/invite", email, context)
    message.send()
    return link


def accept(request: HttpRequest, email: str) -> None:
    """Open the sign-up form of this session for `email`, already verified: the mail reached it."""
    request.session[SESSION_KEY] = email
    get_adapter(request).stash_verified_email(request, email)


def session_invited_email(request: HttpRequest) -> str | None:
    """The address this session's invitation is for, while it may still be used."""
    email = request.session.get(SESSION_KEY)
    if email and not has_account(email):
        return email
    return None


def forget_used(request: HttpRequest, **kwargs: object) -> None:
    """After a sign-up (allauth's user_signed_up), the session's invitation is used up."""
    request.session.pop(SESSION_KEY, None)
