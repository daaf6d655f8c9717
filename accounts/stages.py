"""allauth's email verification at sign-in, for the addresses people gave at sign-up only."""

from allauth.account.models import EmailAddress
from allauth.account.stages import EmailVerificationStage


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
