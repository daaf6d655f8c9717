"""The account area under /accounts/: sign-in, sign-up, keys and profile of the people who use the service."""

app_name = "accounts"

urlpatterns: list = []
