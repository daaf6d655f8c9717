"""manage.py import_links FILE --user NAME: the import of POST /s/import, from the command line.

Reads the same formats (C's own exports, Lstu's, and Shlink, Bitly, YOURLS and Kutt exports:
shortener/importers/) under the same limits, and prints the summary and every refused line.
"""

from collections import Counter
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from shortener.errors import Failure
from shortener.services.transfer import links_import, parse_import


class Command(BaseCommand):
    help = "Import short links from a file (C's or Lstu's export, or Shlink, Bitly, YOURLS or Kutt's) for a user."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="The export to import.")
        parser.add_argument("--user", required=True, help="Username of the owner of the imported links.")

    def handle(self, *args: object, file: Path, user: str, **options: object) -> None:
        owner = get_user_model().objects.filter(username=user).first()
        if owner is None:
            raise CommandError(f"There is no user {user!r}.")
        try:
            with file.open("rb") as handle:
                data = handle.read(settings.SHORTENER_IMPORT_MAX_BYTES + 1)
        except OSError as exc:
            raise CommandError(f"Cannot read {file}: {exc.strerror}.") from None
        try:
            items = parse_import(data)
        except Failure as failure:
            raise CommandError(failure.msg) from None
        results = links_import(user_id=owner.pk, items=items)
        counts = Counter(result.status for result in results)
        for result in results:
            if result.status == "refused":
                self.stderr.write(f"line {result.line}: {result.msg}")
        self.stdout.write(
            f"{counts['created']} created, {counts['existing'] + counts['claimed']} already there, "
            f"{counts['refused']} refused."
        )
