from pathlib import Path

from django.core.management.base import BaseCommand

from common import backups


class Command(BaseCommand):
    help = "Write a consistent backup of the database (and MEDIA_ROOT) to PATH, while the service runs."

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="the archive to write (a .tar.gz)")

    def handle(self, *args, path: Path, **options):
        manifest = backups.backup(path)
        self.stdout.write(f"Backed up the {manifest['database']} database (version {manifest['version']}) to {path}")
