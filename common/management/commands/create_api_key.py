"""Issue an API key for interface A, B or C (a personal shortener token)."""

from datetime import date

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from common.api_keys import INTERFACES, Scope, expiry_on, key_model


def _day(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"--expires must be a date, YYYY-MM-DD: {value!r} is not one.") from None


class Command(BaseCommand):
    help = "Create an API key for USERNAME (creating the user if needed) and print it on the last line."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--interface", required=True, choices=sorted(INTERFACES))
        parser.add_argument("--name", default="", help="What the key is for.")
        parser.add_argument(
            "--scope",
            default=Scope.WRITE,
            choices=Scope.values,
            help="read: GET, HEAD and OPTIONS only; write (the default): everything the user may do.",
        )
        parser.add_argument(
            "--expires", metavar="YYYY-MM-DD", help="The day the key stops working (from 00:00 UTC); never by default."
        )

    def handle(self, *args: object, username: str, interface: str, name: str, scope: str, **options: object) -> None:
        expires = options["expires"]
        expires_at = expiry_on(_day(expires)) if expires else None
        if expires_at is not None and expires_at <= timezone.now():
            raise CommandError(f"--expires must be a day after today: {expires} has begun or is past.")
        user, created = get_user_model().objects.get_or_create(username=username)
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
            self.stdout.write(f"Created user {username} (no password; set one with changepassword).")
        _, raw_key = key_model(interface).issue(user=user, name=name, scope=scope, expires_at=expires_at)
        self.stdout.write(f"New {interface} API key for {username}; it is shown only now:")
        self.stdout.write(raw_key)
