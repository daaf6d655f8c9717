"""Helpers shared by the shortener's views."""

import base64
import io
from functools import lru_cache

import segno
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from common.sign_in import followable, sign_in_redirect
from shortener import domains, messages
from shortener.errors import Failure
from shortener.models import ShortLink
from shortener.negotiation import wants_json
from shortener.services.links import link_by_code
from shortener.services.options import option_fields


def short_url(request: HttpRequest, code: str, domain: str | None = None) -> str:
    """The full short URL of `code` on `domain` (None: the domain the request addresses; shortener/domains.py)."""
    return domains.short_url(request, code, domain)


@lru_cache(maxsize=2048)
def qr_svg(text: str, title: str) -> SafeString:
    """An inline SVG QR code of `text`, named `title` (in the reader's language): no image request,
    and no inline style for the CSP to refuse.

    Cached (a short URL's code never changes): making one took ~14 ms, a link's statistics page
    asks for it on every view."""
    qr = segno.make(text, error="m")
    # segno escapes the title and emits only attributes it computed itself.
    return mark_safe(qr.svg_inline(scale=4, border=2, dark="#000", light="#fff", title=title))


@lru_cache(maxsize=2048)
def qr_png_base64(text: str) -> str:
    """A QR code as base64 PNG without a data: prefix, as Lstu's `qrcode` field (cached: a stats list repeats them)."""
    buffer = io.BytesIO()
    segno.make(text, error="m").save(buffer, kind="png", scale=settings.SHORTENER_QRCODE_SCALE, border=2)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def lifetime_fields(link: ShortLink) -> dict[str, int]:
    """`expires_at` (Unix time) and `max_visits` for JSON answers, only when set (Lstu has neither)."""
    fields = {}
    if link.expires_at is not None:
        fields["expires_at"] = int(link.expires_at.timestamp())
    if link.max_visits is not None:
        fields["max_visits"] = link.max_visits
    return fields


def live_link(request: HttpRequest, code: str, *, with_tags: bool = False) -> ShortLink:
    """The link behind `code`, or a 404 Failure when it is unknown or deleted (an expired one is kept).

    `with_tags`: extra_fields() will read its tags, which then come in the same query.
    """
    link = link_by_code(code, domains.request_domain(request), with_tags=with_tags)
    if link is None or link.is_deleted:
        message = messages.LINK_GONE if link else messages.LINK_UNKNOWN
        raise Failure(message.format(short=short_url(request, code)), 404)
    return link


def extra_fields(link: ShortLink) -> dict[str, object]:
    """`tags`, `protected`, `disabled`, `imported_visits` and `domain` for JSON answers, only when
    they apply (Lstu's shape otherwise)."""
    fields: dict[str, object] = {}
    names = getattr(link, "tag_names", None)
    tags = sorted(names if names is not None else (tag.name for tag in link.tags.all()))
    if tags:
        fields["tags"] = tags
    if link.password_hash:
        fields["protected"] = True
    # Moderation and imports (issue 46): only when set, like the fields above.
    if link.disabled_at is not None:
        fields["disabled"] = True
    if link.imported_visits:
        fields["imported_visits"] = link.imported_visits
    fields.update(option_fields(link))
    if len(domains.configured()) > 1:
        # Several short domains: which one the link is on (one domain keeps Lstu's shape).
        fields["domain"] = domains.host_of(link.domain)
    return fields


def safe_next(request: HttpRequest, candidate: str) -> str:
    """`candidate` if the sign-in page may go there (common.sign_in.followable), else the main page."""
    return candidate if followable(request, candidate) else reverse("shortener:index")


def login_required_response(request: HttpRequest) -> HttpResponse:
    """Send a browser to the login page (and back afterwards); tell a JSON client that it must log in."""
    if wants_json(request):
        raise Failure(messages.LOGIN_REQUIRED, 401)
    # After logging in the browser comes back with a GET, which only a GET page can answer.
    back = request.get_full_path() if request.method == "GET" else reverse("shortener:index")
    return sign_in_redirect(request, back, reverse("shortener:login"))  # Lstu's own, as its clients expect
