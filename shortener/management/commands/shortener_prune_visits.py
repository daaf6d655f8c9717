from django.core.management.base import BaseCommand, CommandParser

from shortener.charts import CHART_DAYS
from shortener.services.visits import visits_prune


class Command(BaseCommand):
    help = "Delete the unique-visit rows older than the visits charts show (run daily; the counters are kept)."

    def add_arguments(self, parser: CommandParser) -> None:
        # The charts count each day's rows, so they are kept for as many days as the charts show.
        parser.add_argument(
            "--keep-days",
            type=int,
            default=CHART_DAYS - 1,
            help=f"Days before today to keep (default {CHART_DAYS - 1}).",
        )

    def handle(self, *args: object, **options: object) -> None:
        deleted = visits_prune(keep_days=int(options["keep_days"]))
        self.stdout.write(f"Deleted {deleted} visit row(s).")
