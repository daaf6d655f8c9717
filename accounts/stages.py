"""allauth's email verification at sign-in, for the addresses people gave at sign-up only."""

from allauth.account.models import EmailAddress
from allauth.account.stages import EmailVerificationStage
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser


def awaits_confirmation(user: AbstractBaseUser) -> bool:
    """Whether mandatory verification still holds this account: it signed up with an address not yet confirmed.

    For the sign-in paths outside allauth's stages (the shortener's /s/login for Lstu's clients).
    """
    if settings.ACCOUNT_EMAIL_VERIFICATION != "mandatory":
        return False
    verified = list(EmailAddress.objects.filter(user_id=user.pk).values_list("verified", flat=True))
    return bool(verified) and not any(verified)


class SignUpEmailVerificationStage(EmailVerificationStage):
    """Verify the addresses allauth recorded; let in the accounts it never gave one.

    Accounts made by the operator (createsuperuser, create_demo_user, the admin) or by a
    directory sign-in have no allauth address record: the operator vouched for them, and
    /s/login lets them in. allauth's own stage would hold every one of them at "verify your
    email" on /accounts/login/ when ACCOUNTS_EMAIL_VERIFICATION is mandatory.
    """

    def handle(self):
        user = self.login.user  # None when a sign-up with a known address only pretends (enumeration)
        if user is not None and not EmailAddress.objects.filter(user_id=user.pk).exists():
            return None, True
        return super().handle()
