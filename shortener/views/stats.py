"""Statistics: own links, all links in admin mode, one link; entering admin mode; deleting links."""

import datetime
import re
import time

from django.contrib import messages as flash
from django.db.models import Exists, OuterRef, Q, QuerySet, prefetch_related_objects
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from shortener import messages
from shortener.charts import CHART_DAYS, link_chart, site_chart
from shortener.domains import domain_query
from shortener.errors import Failure
from shortener.messages import localized
from shortener.models import ApiKey, LinkRankBucket, LinkTag, ShortLink
from shortener.negotiation import endpoint, is_cross_site, request_data, wants_json
from shortener.responses import success
from shortener.services.admin_mode import (
    BadAdminPassword,
    admin_login,
    admin_logout,
    admin_mode_available,
    is_admin,
)
from shortener.services.breakdowns import (
    BOTS,
    COUNTRY_CREDIT,
    DIMENSIONS,
    DIRECT,
    OTHER,
    RANGE_MAX_DAYS,
    UNKNOWN,
    USER_AGENT_CREDIT,
    link_breakdowns,
)
from shortener.services.editing import clean_tag
from shortener.services.links import (
    link_delete,
    links_free_codes,
    links_page,
    live_links_total,
)
from shortener.services.options import rule_visits
from shortener.services.tallies import owner_live_links, redirecting_links
from shortener.tokens import has_token
from shortener.views.base import (
    extra_fields,
    lifetime_fields,
    live_link,
    login_required_response,
    qr_png_base64,
    qr_svg,
    short_url,
)
from shortener.views.qr import QR_SIZES

PAGE_SIZE = 10
# A user's own links per page (Lstu shows them all; a user rarely has more).
OWN_PAGE_SIZE = 100


PAGE_RE = re.compile(r"[1-9][0-9]{0,8}")
DAY_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
SEARCH_MAX_LENGTH = 200
TABLE_TITLES = {
    "referrers": _("Referrers"),
    "browsers": _("Browsers"),
    "os": _("Operating systems"),
    "devices": _("Device types"),
    "countries": _("Countries"),
}
# The names the breakdowns give themselves, as the page shows them (JSON keeps them in English).
SHOWN_NAMES = {
    UNKNOWN: pgettext_lazy("breakdown", "Unknown"),
    DIRECT: pgettext_lazy("referrer", "Direct"),
    OTHER: pgettext_lazy("breakdown", "Other"),
    "Desktop": pgettext_lazy("device type", "Desktop"),
    "Mobile": pgettext_lazy("device type", "Mobile"),
    "Tablet": pgettext_lazy("device type", "Tablet"),
    "Bot": pgettext_lazy("device type", "Bot"),
}


def _shown(rows: list[dict]) -> list[dict]:
    return [{**row, "name": SHOWN_NAMES.get(row["name"], row["name"])} for row in rows]


def _filtered(request: HttpRequest, links: QuerySet[ShortLink]) -> tuple[QuerySet[ShortLink], str, str]:
    """The links matching `q` (in the URL or code, or a tag) and `tag`, with both as given."""
    query = request.GET.get("q", "").strip()
    if "\x00" in query:  # PostgreSQL cannot compare with NUL
        raise Failure(messages.FIELD_HAS_NUL.format(field="q"))
    if len(query) > SEARCH_MAX_LENGTH:
        raise Failure(messages.SEARCH_TOO_LONG.format(limit=SEARCH_MAX_LENGTH))
    raw_tag = request.GET.get("tag", "").strip()
    tag = clean_tag(raw_tag) if raw_tag else ""
    if query:
        # EXISTS rather than a join, so that a link with several tags is listed once.
        tagged = LinkTag.objects.filter(link=OuterRef("pk"), name=query.lower())
        links = links.filter(Q(url__icontains=query) | Q(code__icontains=query) | Exists(tagged))
    if tag:
        links = links.filter(Exists(LinkTag.objects.filter(link=OuterRef("pk"), name=tag)))
    return links, query, tag


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
        scope = LinkRankBucket.ALL
    else:
        # Lstu lists a user's links whole; paged past OWN_PAGE_SIZE, so that a user with
        # 10,000 links gets a page and not 10,000 QR codes (shortener/README.md).
        size = OWN_PAGE_SIZE
        links = ShortLink.objects.filter(owner=request.user)
        scope = request.user.pk
    links, query, tag = _filtered(request, links)
    if query or tag:
        # A search or a tag narrows the list below what the kept tallies and buckets count.
        total = links.filter(deleted_at__isnull=True).count()
        scope = None
    else:
        total = live_links_total() if admin else owner_live_links(request.user.pk)
    rows = links_page(links, total=total, page=page, size=size, scope=scope)
    prefetch_related_objects(rows, "tags")
    if wants_json(request):
        items = []
        for link in rows:
            short = short_url(request, link.code, link.domain)
            created_at = int(link.created_at.timestamp())
            items.append(
                {
                    "short": short,
                    "url": link.url,
                    "counter": link.counter,
                    "created_at": created_at,
                    "qrcode": qr_png_base64(short),
                    **lifetime_fields(link),
                    **extra_fields(link),
                }
            )
        response = JsonResponse(items, safe=False, status=status)
        response["X-Total-Count"] = str(total)
        return response
    last_page = max(1, -(-total // size))
    keep = {key: value for key, value in (("q", query), ("tag", tag)) if value}
    context = {
        "query": query,
        "tag": tag,
        # The user's tags, offered by the tag field (a phone's list hides them to stay one line a link).
        "own_tags": LinkTag.objects.filter(link__owner=request.user, link__deleted_at__isnull=True)
        .values_list("name", flat=True)
        .distinct()
        .order_by("name")[:200],
        "filtered": bool(keep),
        "previous_query": urlencode({**keep, "page": page - 1}),
        "next_query": urlencode({**keep, "page": page + 1}),
        # `target`: the URL less its scheme, what a phone's narrow column shows.
        "items": [
            {
                "link": link,
                "short": short_url(request, link.code, link.domain),
                "target": link.url.split("://", 1)[-1],
                # A link of another domain than this host's is named by its domain in the page's URLs.
                "domain_query": domain_query(request, link.domain),
            }
            for link in rows
        ],
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
        flash.success(request, localized(messages.ADMIN_MODE_OFF))
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


def _day(raw: str, default: datetime.date) -> datetime.date:
    if not raw:
        return default
    if not DAY_RE.fullmatch(raw):
        raise Failure(messages.DATE_INVALID)
    try:
        return datetime.date.fromisoformat(raw)
    except ValueError:
        raise Failure(messages.DATE_INVALID) from None


def date_range(request: HttpRequest) -> tuple[datetime.date, datetime.date]:
    """The days `from`..`to` (YYYY-MM-DD, UTC; by default the last CHART_DAYS days, today included)."""
    today = timezone.now().date()
    last = _day(request.GET.get("to", ""), today)
    try:
        default_first = last - datetime.timedelta(days=CHART_DAYS - 1)
    except OverflowError:  # `to` in the first days of year 1
        default_first = datetime.date.min
    first = _day(request.GET.get("from", ""), default_first)
    if first > last or (last - first).days >= RANGE_MAX_DAYS:
        raise Failure(messages.DATE_RANGE_INVALID.format(days=RANGE_MAX_DAYS))
    return first, last


# Lstu answers JSON here whatever the client asks; a browser asking for a page gets one.
@endpoint("GET", "HEAD", json_by_default=True)
def stats_detail(request: HttpRequest, code: str) -> HttpResponse:
    link = live_link(request, code, with_tags=True)
    short = short_url(request, code)
    first, last = date_range(request)
    breakdowns = link_breakdowns(link.pk, first, last)
    fields = {
        "url": link.url,
        "short": short,
        "counter": link.counter,
        "created_at": int(link.created_at.timestamp()),
        "timestamp": int(time.time()),
        **lifetime_fields(link),
        **extra_fields(link),
    }
    if link.rules:
        # Which rule sent how many of the range's unique visits, and how many none matched.
        fields["rules"], fields["unmatched_visits"] = rule_visits(link, first, last)
    if wants_json(request):
        return success(**fields, **{"from": first.isoformat(), "to": last.isoformat()}, **breakdowns)
    can_change = request.user.is_authenticated and (link.owner_id == request.user.pk or is_admin(request))
    context = {
        **fields,
        "link": link,
        "qr": qr_svg(short, gettext("QR code of {url}").format(url=short)),
        "chart": link_chart(link.pk),
        "first": first,
        "last": last,
        "tables": [(TABLE_TITLES[dimension], _shown(breakdowns[dimension])) for dimension in DIMENSIONS],
        "bots": breakdowns[BOTS],
        "range_total": sum(item["visits"] for item in breakdowns["browsers"]),
        "can_change": can_change,
        "qr_sizes": QR_SIZES,
        "country_credit": COUNTRY_CREDIT,
        "user_agent_credit": USER_AGENT_CREDIT,
    }
    return render(request, "shortener/stats_detail.html", context)


@endpoint("GET", "HEAD")
def fullstats(request: HttpRequest) -> HttpResponse:
    """Lstu's public counts: live links, codes still free (see shortener/README.md), and the time."""
    urls = redirecting_links(live_links_total())
    return JsonResponse({"empty": links_free_codes(), "urls": urls, "timestamp": int(time.time())})


def owned_link(request: HttpRequest, code: str) -> ShortLink:
    """The live link behind `code` if the user may change it: its owner, or anyone in admin mode."""
    link = live_link(request, code)
    if link.owner_id != request.user.pk and not is_admin(request):
        raise Failure(messages.NOT_YOUR_LINK.format(short=short_url(request, code)), 403)
    return link


@endpoint("GET", "POST", csrf=True, token=True)
def delete(request: HttpRequest, code: str) -> HttpResponse:
    """GET (Lstu's, admin mode only) or POST (its owner, or admin mode; the confirmation page's form)."""
    # A GET that deletes: refuse it when a browser says another site started it.
    if request.method == "GET" and is_cross_site(request):
        raise Failure(messages.CROSS_SITE, 403)
    if not request.user.is_authenticated:
        return login_required_response(request)
    try:
        if request.method == "GET":
            if not is_admin(request):
                raise Failure(messages.NOT_ADMIN, 403)
            link = live_link(request, code)
        else:
            link = owned_link(request, code)
    except Failure as failure:
        if wants_json(request):
            raise
        flash.error(request, localized(failure.msg))
        return redirect("shortener:stats")
    link_delete(link=link)
    short = short_url(request, code)
    if wants_json(request):
        return success(url=link.url, short=short)
    flash.success(request, localized(messages.LINK_DELETED.format(short=short)))
    return redirect("shortener:stats")


@endpoint("GET", "HEAD")
def delete_confirm(request: HttpRequest, code: str) -> HttpResponse:
    """The page that asks before deleting: its button posts to /d/<code> with the CSRF token."""
    if not request.user.is_authenticated:
        return login_required_response(request)
    link = owned_link(request, code)
    return render(request, "shortener/delete.html", {"link": link, "short": short_url(request, code)})
