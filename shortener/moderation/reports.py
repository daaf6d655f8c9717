"""Reports of abusive links, the admins' queue of them, and disabling or enabling a link.

Disabling sets `disabled_at` with save(), so the post_save signal drops every process's cached
copy of the link (fastpath.forget_cached_link): the next visit anywhere reads it as disabled.
"""

from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.db.models import Count, Exists, Max, OuterRef, Q, QuerySet
from django.utils import timezone

from common.throttling import Throttle
from shortener import messages
from shortener.errors import Failure
from shortener.models import LinkReport, ShortLink

REASON_MAX_LENGTH = 1000
# Reasons shown per link in the queue (the newest); the count covers them all.
QUEUE_REASONS = 5
QUEUE_PAGE = 100


class ReportThrottle(Throttle):
    """SHORTENER_REPORT_RATE_LIMIT reports per SHORTENER_REPORT_RATE_PERIOD seconds per client address."""

    scope = "shortener:report"
    limit_setting = "SHORTENER_REPORT_RATE_LIMIT"
    period_setting = "SHORTENER_REPORT_RATE_PERIOD"
    message = messages.TOO_MANY_REPORTS


def clean_reason(raw: str) -> str:
    reason = raw.strip()
    if not reason:
        raise Failure(messages.REPORT_REASON_MISSING)
    if len(reason) > REASON_MAX_LENGTH:
        raise Failure(messages.REPORT_REASON_TOO_LONG.format(limit=REASON_MAX_LENGTH))
    return reason


def report_create(*, link: ShortLink, reason: str) -> LinkReport:
    return LinkReport.objects.create(link=link, reason=reason)


# Of a link's reports, those still in the queue (the aggregates' filter).
OPEN = Q(reports__resolved_at__isnull=True)


def links_with_open_reports(links: QuerySet[ShortLink]) -> QuerySet[ShortLink]:
    # A subquery, not a join filter: `reports__resolved_at__isnull` alone would also match links
    # without any report (the LEFT JOIN's NULL).
    return links.filter(Exists(LinkReport.objects.filter(link=OuterRef("pk"), resolved_at__isnull=True)))


@dataclass
class QueuedLink:
    link: ShortLink
    reports: int
    last_reported_at: datetime
    reasons: list[str] = field(default_factory=list)


def report_queue(limit: int = QUEUE_PAGE) -> list[QueuedLink]:
    """Links with open reports, most reported first, each with its newest reasons (two queries)."""
    links = list(
        links_with_open_reports(ShortLink.objects.all())
        .annotate(open_reports=Count("reports", filter=OPEN), last_reported_at=Max("reports__created_at", filter=OPEN))
        .order_by("-open_reports", "-last_reported_at", "pk")[:limit]
    )
    reasons: dict[int, list[str]] = {}
    for link_id, reason in (
        LinkReport.objects.filter(link__in=links, resolved_at__isnull=True)
        .order_by("link_id", "-created_at", "-pk")
        .values_list("link_id", "reason")
    ):
        kept = reasons.setdefault(link_id, [])
        if len(kept) < QUEUE_REASONS:
            kept.append(reason)
    return [QueuedLink(link, link.open_reports, link.last_reported_at, reasons.get(link.pk, [])) for link in links]


def _resolve_reports(link: ShortLink) -> None:
    LinkReport.objects.filter(link=link, resolved_at__isnull=True).update(resolved_at=timezone.now())


def link_disable(*, link: ShortLink, reason: str = "") -> None:
    """Disable the link (410 everywhere within a second) and close its reports."""
    with transaction.atomic():
        link.disabled_at = timezone.now()
        link.disabled_reason = reason[:200]
        link.save(update_fields=["disabled_at", "disabled_reason"])
        _resolve_reports(link)


def link_enable(*, link: ShortLink) -> None:
    with transaction.atomic():
        link.disabled_at = None
        link.disabled_reason = ""
        link.save(update_fields=["disabled_at", "disabled_reason"])
        _resolve_reports(link)


def reports_dismiss(*, link: ShortLink) -> None:
    """Keep the link as it is; its reports leave the queue."""
    _resolve_reports(link)


def open_reports_count() -> int:
    return LinkReport.objects.filter(resolved_at__isnull=True).count()
