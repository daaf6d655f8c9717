from argparse import ArgumentParser

from django.core.management.base import BaseCommand
from django.utils import timezone

from pastes.models import Paste


class Command(BaseCommand):
    help = "Delete every paste whose expiration has passed (run it from cron); --dry-run only lists them."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="List the expired pastes without deleting them.")

    def handle(self, *args: object, dry_run: bool = False, **options: object) -> None:
        expired = Paste.objects.expired(timezone.now()).order_by("expires_at")
        if dry_run:
            ids = list(expired.values_list("id", flat=True))
            for paste_id in ids:
                self.stdout.write(paste_id)
            self.stdout.write(f"{len(ids)} expired paste(s) would be deleted.")
            return
        deleted, _ = expired.delete()
        self.stdout.write(f"Deleted {deleted} expired paste(s).")
