"""Reporting a link (anyone), the moderation queue (admin mode), and the 410 of a disabled link."""

from django.contrib import messages as flash
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext_noop

from shortener import messages
from shortener.errors import Failure, error_body
from shortener.messages import localized
from shortener.models import ShortLink
from shortener.moderation import reports
from shortener.negotiation import endpoint, request_data, wants_json
from shortener.responses import success
from shortener.services.admin_mode import is_admin
from shortener.throttling import enforce
from shortener.views.base import live_link, login_required_response, short_url

ACTIONS = {"disable", "enable", "dismiss"}
RECENTLY_DISABLED = 50
# Stored as the link's reason in English; the moderation page shows it translated.
DISABLED_BY_ADMIN = gettext_noop("Disabled by an admin")


def disabled_response(request: HttpRequest, short: str) -> HttpResponse:
    """410 Gone, in C's error shape: the link exists but the moderators disabled it."""
    message = messages.LINK_DISABLED.format(short=short)
    if wants_json(request):
        return JsonResponse(error_body(message), status=410)
    return render(request, "shortener/moderation/disabled.html", {"msg": message, "short": short}, status=410)


@endpoint("GET", "HEAD", "POST", csrf=True)
def report(request: HttpRequest, code: str) -> HttpResponse:
    """GET: the report form. POST (`reason`): files a report; no account needed, limited per address."""
    link = live_link(request, code)
    short = short_url(request, code)
    if link.is_disabled:
        return disabled_response(request, short)
    if request.method != "POST":
        if wants_json(request):
            raise Failure(messages.METHOD_NOT_ALLOWED, 405)
        return render(request, "shortener/moderation/report.html", {"short": short, "code": code})
    data = request_data(request)
    try:
        enforce(reports.ReportThrottle(), request)
        reason = reports.clean_reason(data.get("reason", ""))
    except Failure as failure:
        if wants_json(request):
            raise
        context = {"short": short, "code": code, "error": failure.msg, "reason_value": data.get("reason", "")}
        response = render(request, "shortener/moderation/report.html", context, status=failure.status)
        if failure.retry_after is not None:
            response["Retry-After"] = str(failure.retry_after)
        return response
    reports.report_create(link=link, reason=reason)
    message = messages.REPORT_SENT.format(short=short)
    if wants_json(request):
        return success(msg=message)
    return render(request, "shortener/moderation/report.html", {"short": short, "code": code, "sent": message})


def _require_admin(request: HttpRequest) -> HttpResponse | None:
    if not request.user.is_authenticated:
        return login_required_response(request)
    if not is_admin(request):
        raise Failure(messages.NOT_ADMIN, 403)
    return None


@endpoint("GET", "HEAD")
def queue(request: HttpRequest) -> HttpResponse:
    """Admin mode: the links with open reports, grouped per link, most reported first."""
    refused = _require_admin(request)
    if refused is not None:
        return refused
    queued = reports.report_queue()
    if wants_json(request):
        links = [
            {
                "short": short_url(request, item.link.code),
                "url": item.link.url,
                "reports": item.reports,
                "last_reported_at": int(item.last_reported_at.timestamp()),
                "reasons": item.reasons,
                "disabled": item.link.is_disabled,
            }
            for item in queued
        ]
        return success(links=links)
    disabled = ShortLink.objects.filter(disabled_at__isnull=False, deleted_at__isnull=True).order_by("-disabled_at")
    context = {
        "queue": [(item, short_url(request, item.link.code)) for item in queued],
        "disabled": [(link, short_url(request, link.code)) for link in disabled[:RECENTLY_DISABLED]],
    }
    return render(request, "shortener/moderation/queue.html", context)


@endpoint("POST", csrf=True)
def moderate(request: HttpRequest, code: str) -> HttpResponse:
    """Admin mode: `action` disable, enable or dismiss (keep the link, close its reports)."""
    refused = _require_admin(request)
    if refused is not None:
        return refused
    action = request_data(request).get("action", "")
    if action not in ACTIONS:
        raise Failure(messages.MODERATION_ACTION_INVALID)
    link = live_link(request, code)
    short = short_url(request, code)
    if action == "disable":
        reports.link_disable(link=link, reason=DISABLED_BY_ADMIN)
        message = messages.MODERATION_DISABLED
    elif action == "enable":
        reports.link_enable(link=link)
        message = messages.MODERATION_ENABLED
    else:
        reports.reports_dismiss(link=link)
        message = messages.MODERATION_DISMISSED
    message = message.format(short=short)
    if wants_json(request):
        return success(msg=message)
    flash.success(request, localized(message))
    return redirect("shortener:moderation")
