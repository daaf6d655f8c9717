"""The periodic check: links whose target host became blocked after they were made are disabled.

`check_blocked_links` is a django.tasks task. The analysis worker's sweep (reports'
`manage.py analysis_worker`, which already runs the project's periodic work every few seconds)
calls `enqueue_if_due()`, which queues it at most once per SHORTENER_BLOCKLIST_CHECK_SECONDS
(a cache key added with that timeout: with Redis, once across all workers). `manage.py
shortener_check_blocklist` runs it at once (cron, or after replacing the list).
"""

import logging
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache import cache
from django.tasks import task

from shortener.models import ShortLink
from shortener.moderation import reports
from shortener.moderation.blocklist import blocklist
from shortener.services.links import host_blocked

logger = logging.getLogger(__name__)

DUE_KEY = "shortener:blocklist-check-due"
BATCH = 2000
BLOCKED_REASON = "Blocked domain: {host}"


def disable_blocked_links() -> int:
    """Disable every live link whose host is blocked now; return how many were disabled."""
    if not settings.SHORTENER_BLOCKLIST_FILE and not settings.SHORTENER_BLOCKED_HOSTS:
        return 0
    blocklist.domains(wait=True)  # the list as it is now, even if it changed a moment ago
    disabled = 0
    last_pk = 0
    live = ShortLink.objects.filter(deleted_at__isnull=True, disabled_at__isnull=True)
    while True:
        # A keyset walk by pk, BATCH rows a query: a million links never sit in memory at once.
        rows = list(live.filter(pk__gt=last_pk).order_by("pk").values_list("pk", "url")[:BATCH])
        if not rows:
            return disabled
        last_pk = rows[-1][0]
        for pk, url in rows:
            host = urlsplit(url).hostname or ""
            if host and host_blocked(host):
                link = ShortLink.objects.filter(pk=pk, disabled_at__isnull=True).first()
                if link is not None:
                    reports.link_disable(link=link, reason=BLOCKED_REASON.format(host=host))
                    disabled += 1
                    logger.info("Disabled short link %s: its host %s is blocked.", link.code, host)


@task
def check_blocked_links() -> int:
    return disable_blocked_links()


def enqueue_if_due() -> bool:
    """Queue the check unless it was queued within SHORTENER_BLOCKLIST_CHECK_SECONDS; say whether it was."""
    period = settings.SHORTENER_BLOCKLIST_CHECK_SECONDS
    if not period or not (settings.SHORTENER_BLOCKLIST_FILE or settings.SHORTENER_BLOCKED_HOSTS):
        return False
    if not cache.add(DUE_KEY, 1, timeout=period):
        return False
    check_blocked_links.enqueue()
    return True
