from django.core.management.base import BaseCommand, CommandParser

from shortener.charts import CHART_DAYS
from shortener.services.breakdowns import RANGE_MAX_DAYS
from shortener.services.visits import breakdowns_prune, visits_prune


class Command(BaseCommand):
    help = (
        "Delete the unique-visit rows of days that can no longer be visited again, and the per-link "
        "daily counts older than the charts show (run daily; the counters are kept)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        # A visitor is told apart from a repeat visit only within one UTC day; the rows of
        # yesterday stay for the visits still buffered at midnight.
        parser.add_argument(
            "--keep-days", type=int, default=1, help="Days before today whose visit rows are kept (default 1)."
        )
        # The charts read the daily counts, so those are kept for as many days as the charts show.
        parser.add_argument(
            "--keep-chart-days",
            type=int,
            default=CHART_DAYS - 1,
            help=f"Days before today whose per-link daily counts are kept (default {CHART_DAYS - 1}).",
        )
        # The statistics' breakdowns are chosen over a date range of up to a year.
        parser.add_argument(
            "--keep-breakdown-days",
            type=int,
            default=RANGE_MAX_DAYS - 1,
            help=f"Days before today whose per-link breakdowns are kept (default {RANGE_MAX_DAYS - 1}).",
        )
        parser.add_argument("--batch", type=int, default=10_000, help="Rows deleted per transaction.")

    def handle(self, *args: object, **options: object) -> None:
        visits, daily = visits_prune(
            keep_days=int(options["keep_days"]),
            keep_chart_days=int(options["keep_chart_days"]),
            batch=int(options["batch"]),
        )
        breakdowns = breakdowns_prune(keep_days=int(options["keep_breakdown_days"]), batch=int(options["batch"]))
        self.stdout.write(f"Deleted {visits} visit row(s), {daily} daily count(s) and {breakdowns} breakdown row(s).")
