from pathlib import Path

from django.core.management.base import BaseCommand

from common import backups


class Command(BaseCommand):
    help = "Restore a backup (manage.py backup) into an empty database; refuses one that has any table."

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="the archive manage.py backup wrote")

    def handle(self, *args, path: Path, **options):
        manifest = backups.restore(path)
        self.stdout.write(
            f"Restored the backup of {manifest['created_at']} (version {manifest['version']}); "
            "run manage.py migrate if this version is newer."
        )
