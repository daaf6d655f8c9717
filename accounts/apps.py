from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from allauth.account.signals import user_signed_up

        from accounts import invitations, language, sessions, signin_limits  # noqa: F401 (the last three connect their receivers)

        user_signed_up.connect(invitations.forget_used, dispatch_uid="accounts.invitations.forget_used")

        # Single sign-on is configured by the OIDC_* variables alone, and keeps no tokens: the
        # admin's pages for allauth's apps and tokens would edit what nothing reads. Its
        # "Social accounts" (who is connected to the provider) stay.
        from allauth.socialaccount.models import SocialApp, SocialToken
        from django.contrib import admin

        for model in (SocialApp, SocialToken):
            if admin.site.is_registered(model):
                admin.site.unregister(model)
