from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Create (or reset) a demo user with a known password and print one new API key per interface."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", default="demo")

    def handle(self, *args: object, username: str, password: str, **options: object) -> None:
        user, _ = get_user_model().objects.get_or_create(username=username)
        user.set_password(password)
        user.save(update_fields=["password"])
        self.stdout.write(f"Demo user: {username} / {password}")
        for interface in ("reports", "pastes"):
            call_command("create_api_key", username, interface=interface, name="demo", stdout=self.stdout)
