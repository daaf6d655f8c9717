"""How allauth behaves on this site (settings.ACCOUNT_ADAPTER): who may sign up, and when an email
address must be confirmed."""

from allauth.account.adapter import DefaultAccountAdapter
from django import forms
from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import gettext

from accounts import invitations

ALLAUTH_EMAIL_STAGE = "allauth.account.stages.EmailVerificationStage"
# Where allauth keeps a single sign-on whose account is not made yet (its socialaccount signup flow).
SOCIAL_SIGNUP_SESSION_KEY = "socialaccount_sociallogin"


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request: HttpRequest) -> bool:
        # Sign-up with a password; single sign-on has its own rule (accounts/sso.py).
        if not settings.ACCOUNTS_PASSWORD_LOGIN:
            return False
        mode = settings.ACCOUNTS_REGISTRATION
        if mode == "invite":
            return invitations.session_invited_email(request) is not None
        return mode == "open"

    def clean_email(self, email: str) -> str:
        email = super().clean_email(email)
        request = self.request
        # At sign-up by invitation, the invited address only (a signed-in person may add others, and
        # single sign-on, whose form asks for an address when the provider's is taken, any).
        if (
            settings.ACCOUNTS_REGISTRATION == "invite"
            and request is not None
            and not request.user.is_authenticated
            and SOCIAL_SIGNUP_SESSION_KEY not in request.session
        ):
            invited = request.session.get(invitations.SESSION_KEY)
            if invited is None or invited.lower() != email.strip().lower():
                raise forms.ValidationError(
                    gettext("This invitation is for {email}: sign up with that address.").format(email=invited)
                )
        return email

    def get_login_stages(self) -> list[str]:
        return [
            "accounts.stages.SignUpEmailVerificationStage" if stage == ALLAUTH_EMAIL_STAGE else stage
            for stage in super().get_login_stages()
        ]
