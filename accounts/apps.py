from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from allauth.account.signals import user_signed_up

        from accounts import invitations, sessions, signin_limits  # noqa: F401 (the last two connect their receivers)

        user_signed_up.connect(invitations.forget_used, dispatch_uid="accounts.invitations.forget_used")
