"""Issue an API key for interface A, B or C (a personal shortener token)."""

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

KEY_MODELS = {"reports": "reports.ApiKey", "pastes": "pastes.ApiKey", "shortener": "shortener.ApiKey"}


class Command(BaseCommand):
    help = "Create an API key for USERNAME (creating the user if needed) and print it on the last line."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--interface", required=True, choices=sorted(KEY_MODELS))
        parser.add_argument("--name", default="", help="What the key is for.")

    def handle(self, *args: object, username: str, interface: str, name: str, **options: object) -> None:
        user, created = get_user_model().objects.get_or_create(username=username)
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
            self.stdout.write(f"Created user {username} (no password; set one with changepassword).")
        _, raw_key = apps.get_model(KEY_MODELS[interface]).issue(user=user, name=name)
        self.stdout.write(f"New {interface} API key for {username}; it is shown only now:")
        self.stdout.write(raw_key)
