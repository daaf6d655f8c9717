from django.core.management.base import BaseCommand, CommandParser

from shortener.services.visits import visits_prune


class Command(BaseCommand):
    help = "Delete the unique-visit rows of past days (run daily; the counters are kept)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--keep-days", type=int, default=1, help="Days before today to keep (default 1).")

    def handle(self, *args: object, **options: object) -> None:
        deleted = visits_prune(keep_days=int(options["keep_days"]))
        self.stdout.write(f"Deleted {deleted} visit row(s).")
