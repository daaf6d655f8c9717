"""Statistics: own links, all links in admin mode, one link; entering admin mode; deleting links."""

import re
import time

from django.contrib import messages as flash
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render

from shortener import messages
from shortener.charts import link_chart, site_chart
from shortener.errors import Failure
from shortener.models import ApiKey, LinkRankBucket, ShortLink
from shortener.negotiation import endpoint, is_cross_site, request_data, wants_json
from shortener.responses import success
from shortener.services.admin_mode import (
    BadAdminPassword,
    admin_login,
    admin_logout,
    admin_mode_available,
    is_admin,
)
from shortener.services.links import (
    link_by_code,
    link_delete,
    links_free_codes,
    links_page,
    live_links_total,
)
from shortener.services.tallies import owner_live_links, redirecting_links
from shortener.tokens import has_token
from shortener.views.base import lifetime_fields, login_required_response, qr_png_base64, qr_svg, short_url

PAGE_SIZE = 10
# A user's own links per page (Lstu shows them all; a user rarely has more).
OWN_PAGE_SIZE = 100


PAGE_RE = re.compile(r"[1-9][0-9]{0,8}")


def _page_number(raw: str) -> int:
    if not PAGE_RE.fullmatch(raw):
        raise Failure(messages.PAGE_INVALID)
    return int(raw)


def stats_page(
    request: HttpRequest, *, error: str = "", status: int = 200, new_token: str = "", import_report: dict | None = None
) -> HttpResponse:
    admin = is_admin(request)
    page = _page_number(request.GET.get("page", "1"))
    if admin:
        size = PAGE_SIZE
        links = ShortLink.objects.all()
        total = live_links_total()
        scope = LinkRankBucket.ALL
    else:
        # Lstu lists a user's links whole; paged past OWN_PAGE_SIZE, so that a user with
        # 10,000 links gets a page and not 10,000 QR codes (shortener/README.md).
        size = OWN_PAGE_SIZE
        links = ShortLink.objects.filter(owner=request.user)
        total = owner_live_links(request.user.pk)
        scope = request.user.pk
    rows = links_page(links, total=total, page=page, size=size, scope=scope)
    if wants_json(request):
        items = []
        for link in rows:
            short = short_url(request, link.code)
            created_at = int(link.created_at.timestamp())
            items.append(
                {
                    "short": short,
                    "url": link.url,
                    "counter": link.counter,
                    "created_at": created_at,
                    "qrcode": qr_png_base64(short),
                    **lifetime_fields(link),
                }
            )
        response = JsonResponse(items, safe=False, status=status)
        response["X-Total-Count"] = str(total)
        return response
    last_page = max(1, -(-total // size))
    context = {
        "items": [{"link": link, "short": short_url(request, link.code)} for link in rows],
        "first_rank": (page - 1) * size + 1,
        "is_admin": admin,
        "admin_available": admin_mode_available(),
        "page": page,
        "last_page": last_page,
        "paged": admin or last_page > 1 or page > 1,
        "previous_page": page - 1 if page > 1 else None,
        "next_page": page + 1 if page < last_page else None,
        "total": total,
        "error": error,
        "api_keys": ApiKey.objects.filter(user=request.user, revoked_at__isnull=True).order_by("-created_at"),
        "new_token": new_token,
        "import_report": import_report,
        # The whole service's visits, in admin mode only: a user's page is about their links.
        "chart": site_chart() if admin else None,
    }
    return render(request, "shortener/stats.html", context, status=status)


def _admin_action(request: HttpRequest) -> HttpResponse:
    data = request_data(request)
    if data.get("action") == "logout":
        admin_logout(request)
        if wants_json(request):
            return success(msg=messages.LOGOUT_OK)
        # Lstu's "logged out" would read as the end of the session, which goes on.
        flash.success(request, messages.ADMIN_MODE_OFF)
        return redirect("shortener:stats")
    try:
        password = data.get("adminpwd", "")
        if not password:
            raise Failure(messages.ADMIN_PASSWORD_MISSING)
        admin_login(request, password)
    except Failure as failure:
        if wants_json(request):
            raise
        message = failure.page_message() if isinstance(failure, BadAdminPassword) else failure.msg
        response = stats_page(request, error=message, status=failure.status)
        if failure.retry_after is not None:
            response["Retry-After"] = str(failure.retry_after)
        return response
    if wants_json(request):
        return success(msg=messages.LOGIN_OK)
    # The page itself says "Admin mode on" for as long as it is; Lstu's "logged in" would
    # read as signing in to the site.
    return redirect("shortener:stats")


@endpoint("GET", "HEAD", "POST", csrf=True, token=True)
def stats(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return login_required_response(request)
    if request.method == "POST":
        if has_token(request):
            raise Failure(messages.ADMIN_NEEDS_SESSION, 403)
        return _admin_action(request)
    return stats_page(request)


def _live_link(request: HttpRequest, code: str) -> ShortLink:
    link = link_by_code(code)
    if link is None or link.is_deleted:
        message = messages.LINK_GONE if link else messages.LINK_UNKNOWN
        raise Failure(message.format(short=short_url(request, code)), 404)
    return link


# Lstu answers JSON here whatever the client asks; a browser asking for a page gets one.
@endpoint("GET", "HEAD", json_by_default=True)
def stats_detail(request: HttpRequest, code: str) -> HttpResponse:
    link = _live_link(request, code)
    short = short_url(request, code)
    fields = {
        "url": link.url,
        "short": short,
        "counter": link.counter,
        "created_at": int(link.created_at.timestamp()),
        "timestamp": int(time.time()),
        **lifetime_fields(link),
    }
    if wants_json(request):
        return success(**fields)
    context = {**fields, "link": link, "qr": qr_svg(short), "chart": link_chart(link.pk)}
    return render(request, "shortener/stats_detail.html", context)


@endpoint("GET", "HEAD")
def fullstats(request: HttpRequest) -> HttpResponse:
    """Lstu's public counts: live links, codes still free (see shortener/README.md), and the time."""
    urls = redirecting_links(live_links_total())
    return JsonResponse({"empty": links_free_codes(), "urls": urls, "timestamp": int(time.time())})


@endpoint("GET", token=True)
def delete(request: HttpRequest, code: str) -> HttpResponse:
    # A GET that deletes: refuse it when a browser says another site started it.
    if is_cross_site(request):
        raise Failure(messages.CROSS_SITE, 403)
    if not request.user.is_authenticated:
        return login_required_response(request)
    try:
        if not is_admin(request):
            raise Failure(messages.NOT_ADMIN, 403)
        link = _live_link(request, code)
    except Failure as failure:
        if wants_json(request):
            raise
        flash.error(request, failure.msg)
        return redirect("shortener:stats")
    link_delete(link=link)
    short = short_url(request, code)
    if wants_json(request):
        return success(url=link.url, short=short)
    flash.success(request, messages.LINK_DELETED.format(short=short))
    return redirect("shortener:stats")
