"""Compile the project's translation catalogs (.po → .mo) with polib: no gettext tools needed."""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from common.catalogs import catalogs, compile_catalog, is_stale


class Command(BaseCommand):
    help = "Compile every .po catalog of the project (locale/ and each app's locale/) that changed since its .mo."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--force", action="store_true", help="Compile every catalog, changed or not.")

    def handle(self, *args: object, force: bool = False, **options: object) -> None:
        found = catalogs()
        compiled = 0
        for po in found:
            if not force and not is_stale(po):
                continue
            try:
                compile_catalog(po)
            except (OSError, ValueError) as error:
                raise CommandError(f"{po}: {error}") from error
            compiled += 1
            if options["verbosity"] >= 2:
                self.stdout.write(f"Compiled {po}")
        if options["verbosity"] >= 1:
            self.stdout.write(f"{compiled} of {len(found)} catalogs compiled ({len(found) - compiled} up to date).")
