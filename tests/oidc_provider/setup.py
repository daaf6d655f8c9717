"""Fill the test provider's database: its people and the one client (the service under test).

Run in the provider's environment: `python -m tests.oidc_provider.setup '<json>'` with
{"client_id", "client_secret", "redirect_uri", "users": [{"username", "password", "email", "verified"}]}.
"""

import json
import os
import sys

import django

os.environ["DJANGO_SETTINGS_MODULE"] = "tests.oidc_provider.settings"
django.setup()

from allauth.account.models import EmailAddress  # noqa: E402 (after setup)
from allauth.idp.oidc.models import Client  # noqa: E402
from django.contrib.auth.hashers import make_password  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402


def main(spec: dict) -> None:
    call_command("migrate", verbosity=0)
    for person in spec["users"]:
        user = User.objects.create_user(person["username"], person["email"], person["password"])
        if person["email"]:  # without one, the provider's answers have no `email` claim
            EmailAddress.objects.create(user=user, email=person["email"], verified=person["verified"], primary=True)
    Client.objects.create(
        id=spec["client_id"],
        name="Webtools under test",
        secret=make_password(spec["client_secret"]),
        scopes="openid\nprofile\nemail",
        redirect_uris=spec["redirect_uri"],
        skip_consent=False,
    )


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
