"""The demo `make run` prints: a user, one API key per interface, and how to enter each admin.

Keys are stored only as digests, so they cannot be shown again from the database. With
--keys-file the raw keys are kept in that file (mode 600, next to .secret_key) and
reprinted while they still open their interface; otherwise, and for a key that no longer
works, the user's earlier demo keys are revoked and a new one is issued. So keys never
pile up, and a key copied from an earlier run keeps working across restarts.
"""

import json
import os
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from common.api_keys import INTERFACES, key_model
from shortener.services.admin_mode import admin_mode_available

DEMO_KEY_NAME = "demo"


class Command(BaseCommand):
    help = "Create (or reset) a demo user with a known password and print its API keys and the admin entrances."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", default="demo")
        parser.add_argument("--keys-file", type=Path, help="Keep the raw demo keys here and reprint them.")
        parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="Where the service is served.")

    def handle(self, *args: object, username: str, password: str, keys_file: Path | None, **options: object) -> None:
        base_url = str(options["base_url"]).rstrip("/")
        user, _ = get_user_model().objects.get_or_create(username=username)
        user.set_password(password)
        user.save(update_fields=["password"])
        self.stdout.write(f"Demo user: {username} / {password}")

        kept = self._read_keys(keys_file)
        keys = {interface: self._demo_key(user, interface, kept.get(interface, "")) for interface in INTERFACES}
        if keys_file is not None and keys != kept:
            self._write_keys(keys_file, keys)
        for interface, raw_key in keys.items():
            self.stdout.write(f"{interface.capitalize()} API key of {username}:")
            self.stdout.write(raw_key)

        self._print_admin_entrances(base_url)

    def _demo_key(self, user: AbstractBaseUser, interface: str, raw_key: str) -> str:
        """`raw_key` if it still opens `interface` as `user`; else a new key, the older demo keys revoked."""
        model = key_model(interface)
        current = model.authenticate(raw_key) if raw_key else None
        if current is not None and current.user_id == user.pk and current.name == DEMO_KEY_NAME:
            return raw_key
        with transaction.atomic():
            for old in model.objects.filter(user=user, name=DEMO_KEY_NAME, revoked_at__isnull=True):
                old.revoke()
            _, raw_key = model.issue(user=user, name=DEMO_KEY_NAME)
        return raw_key

    def _read_keys(self, keys_file: Path | None) -> dict[str, str]:
        if keys_file is None or not keys_file.is_file():
            return {}
        try:
            keys = json.loads(keys_file.read_text())
        except ValueError:  # damaged: new keys replace it
            return {}
        if not isinstance(keys, dict):
            return {}
        return {name: value for name, value in keys.items() if isinstance(value, str)}

    def _write_keys(self, keys_file: Path, keys: dict[str, str]) -> None:
        # Created readable by the owner only, like .secret_key: it holds working keys.
        descriptor = os.open(keys_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            json.dump(keys, file)

    def _print_admin_entrances(self, base_url: str) -> None:
        prefix = settings.SHORTENER_PREFIX
        shortener = f"{base_url}/{prefix}/" if prefix else f"{base_url}/"
        if settings.SHORTENER_ADMINPWD:
            self.stdout.write(
                f"Short links admin mode: sign in at {shortener}login, open Statistics and enter "
                f"the admin password {settings.SHORTENER_ADMINPWD}"
            )
        elif admin_mode_available():
            self.stdout.write(f"Short links admin mode: open {shortener}stats and enter the admin password.")
        else:
            self.stdout.write("Short links admin mode is off: set SHORTENER_ADMINPWD to turn it on.")
        self.stdout.write(
            f"Django admin ({base_url}/admin/): make a superuser with .venv/bin/python manage.py createsuperuser"
        )
