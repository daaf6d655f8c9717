from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from accounts import sessions, signin_limits  # noqa: F401 (they connect their signal receivers)
