from django.core.management.base import BaseCommand

from shortener.moderation.tasks import disable_blocked_links


class Command(BaseCommand):
    help = (
        "Disable the live short links whose target host is blocked now (SHORTENER_BLOCKLIST_FILE or "
        "SHORTENER_BLOCKED_HOSTS). The analysis worker queues this check every SHORTENER_BLOCKLIST_CHECK_SECONDS."
    )

    def handle(self, *args: object, **options: object) -> None:
        disabled = disable_blocked_links()
        self.stdout.write(f"Disabled {disabled} link(s) to blocked hosts.")
