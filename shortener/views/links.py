"""The main page, shortening, and following a short link (the hot path)."""

from django.conf import settings
from django.contrib import messages as flash
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.utils.translation import gettext

from common.bots import is_preview_bot_request
from shortener import domains, fastpath, messages
from shortener.errors import Failure
from shortener.messages import localized
from shortener.models import ShortLink
from shortener.moderation.views import disabled_response
from shortener.negotiation import endpoint, request_data, wants_json
from shortener.previews import enqueue_preview_fetch, preview_page
from shortener.responses import redirect_response, success
from shortener.services.admin_mode import is_admin
from shortener.services.anonymous import check_anonymous_shortening
from shortener.services.editing import clean_password, clean_tags, password_hash, set_tags
from shortener.services.lifetime import clean_expires_at, clean_max_visits
from shortener.services.links import RESERVED_CODES, clean_custom, clean_url, link_create
from shortener.services.options import clean_options, non_default
from shortener.throttling import CreateThrottle, enforce
from shortener.views.base import (
    extra_fields,
    lifetime_fields,
    login_required_response,
    qr_png_base64,
    qr_svg,
    short_url,
)
from shortener.views.password import password_gate

# An expired or used-up link is kept (with its statistics) but answers 404 with its own message.
LIFETIME_OVER_MESSAGES = {
    fastpath.EXPIRED: messages.LINK_EXPIRED,
    fastpath.USED_UP: messages.LINK_USED_UP,
    fastpath.GONE: messages.LINK_GONE,
}
# The code just created, shown once on the main page after the redirect.
LAST_CREATED_KEY = "shortener_last_created"


@endpoint("GET", "HEAD")
def index(request: HttpRequest) -> HttpResponse:
    if wants_json(request):
        return success(user=request.user.get_username() or None, admin=is_admin(request))
    on_domain = domains.request_host_domain(request)
    if on_domain is not None and (redirects := domains.redirects_of(on_domain)) and redirects.root_redirect:
        # The root of a short domain, where admins sent it (a browser; JSON clients keep the answer above).
        return HttpResponseRedirect(redirects.root_redirect)
    context: dict[str, object] = {"allow_anonymous": settings.SHORTENER_ALLOW_ANONYMOUS, **domain_choice(request)}
    last = request.session.pop(LAST_CREATED_KEY, None)
    # [domain, code]; a bare code was stored before links had a domain.
    domain, code = last if isinstance(last, list) else ("", last)
    if code and (request.user.is_authenticated or settings.SHORTENER_ALLOW_ANONYMOUS):
        owner = request.user if request.user.is_authenticated else None
        link = ShortLink.objects.filter(domain=domain, code=code, owner=owner, deleted_at__isnull=True).first()
        if link:
            short = short_url(request, link.code, link.domain)
            qr = qr_svg(short, gettext("QR code of {url}").format(url=short))
            context["result"] = {"short": short, "url": link.url, "qr": qr}
    return render(request, "shortener/index.html", context)


def domain_choice(request: HttpRequest, chosen: str | None = None) -> dict[str, object]:
    """The form's domain menu when there are several domains: (stored domain, host) pairs and the chosen one."""
    hosts = domains.configured()
    if len(hosts) < 2:
        return {}
    if chosen is None:
        chosen = domains.request_host_domain(request) or domains.DEFAULT
    return {"domains": [(domains.key_of_host(host), host) for host in hosts], "domain_value": chosen}


@endpoint("POST", csrf=True, token=True)
def create(request: HttpRequest) -> HttpResponse:
    anonymous = not request.user.is_authenticated
    if anonymous and not settings.SHORTENER_ALLOW_ANONYMOUS:
        return login_required_response(request)
    data = request_data(request)
    # Lstu's field names are accepted too, so its clients work unchanged.
    raw_url = data.get("shorturl", data.get("lsturl", ""))
    raw_custom = data.get("shorturl-custom", data.get("lsturl-custom", ""))
    try:
        if anonymous:
            check_anonymous_shortening(request)
        else:
            enforce(CreateThrottle(), request)
        url = clean_url(raw_url)
        # Absent: the domain whose host was asked, else the default (Lstu clients send none).
        raw_domain = data.get("domain")
        domain = domains.clean_domain(raw_domain) if raw_domain else (domains.request_host_domain(request) or "")
        custom = clean_custom(raw_custom, url=url)
        expires_at = clean_expires_at(data.get("expires_at", ""))
        max_visits = clean_max_visits(data.get("max_visits", ""))
        tags = clean_tags(data.get("tags", ""))
        password = clean_password(data.get("password", ""))
        options = non_default(clean_options(data))
        # Anonymous links belong to no one: only admin statistics list them.
        link = link_create(
            owner_id=request.user.pk,
            url=url,
            domain=domain,
            custom=custom,
            expires_at=expires_at,
            max_visits=max_visits,
            password_hash=password_hash(password),
            options=options,
        )
        if tags:
            set_tags(link, tags)
        enqueue_preview_fetch(link)
    except Failure as failure:
        if wants_json(request):
            raise
        context = {
            "error": failure.msg,
            "url_value": raw_url,
            "custom_value": raw_custom,
            "expires_at_value": data.get("expires_at", ""),
            "max_visits_value": data.get("max_visits", ""),
            "tags_value": data.get("tags", ""),
            **domain_choice(request, data.get("domain") if isinstance(data.get("domain"), str) else None),
        }
        return render(request, "shortener/index.html", context, status=failure.status)

    short = short_url(request, link.code, link.domain)
    if wants_json(request):
        return success(
            url=link.url, short=short, qrcode=qr_png_base64(short), **lifetime_fields(link), **extra_fields(link)
        )
    request.session[LAST_CREATED_KEY] = [link.domain, link.code]
    flash.success(request, localized(messages.LINK_CREATED.format(short=short)))
    return redirect("shortener:index")


@endpoint("GET", "HEAD", "POST", csrf=True)
def follow(request: HttpRequest, code: str, extra_path: str = "") -> HttpResponse:
    """Follow a short link: the redirects that reach Django (the others never get here).

    A plain GET of a code already cached in this process is answered by the WSGI shortcut
    (shortener/fastpath/wsgi.py) before Django's URL resolution and middleware: only host
    validation, SecurityMiddleware's HTTPS redirect and its security headers apply to it.
    This view answers the rest: the first visit of a code in a process, HEAD, query strings,
    unknown and deleted codes, a limited link's refusal, and every request when visits are
    written during the request.
    """
    domain = domains.request_domain(request)
    if extra_path and code.lower() in RESERVED_CODES:
        # /admin/login/ on a short domain's host is no short URL (a reserved word is never a code):
        # the site's plain 404, as before links could forward a path.
        raise Http404
    link = fastpath.resolve(domain, code)
    if link is None:
        message = messages.LINK_UNKNOWN
    elif link.is_deleted:
        message = messages.LINK_GONE
    elif extra_path and not link.forward_path:
        message = messages.LINK_UNKNOWN  # /<code>/more is only a path when the link forwards it
    else:
        message = LIFETIME_OVER_MESSAGES.get(fastpath.lifetime_over(link), "")
    if message:
        if elsewhere := domains.not_found_redirect(request):
            return HttpResponseRedirect(elsewhere)
        short = short_url(request, code, domain) + (f"/{extra_path}" if extra_path else "")
        raise Failure(message.format(short=short), 404)
    if link.disabled:
        return disabled_response(request, short_url(request, code, domain))
    if link.protected:
        return password_gate(request, link, short_url(request, code, domain), LIFETIME_OVER_MESSAGES)
    if request.method == "POST":
        raise Failure(messages.METHOD_NOT_ALLOWED, 405)  # only a protected link takes a form
    if wants_json(request):
        return success(url=link.url)
    preview = link.preview is not None and is_preview_bot_request(request)
    url, rule = fastpath.destination(link, request, extra_path)
    refused = fastpath.follow(link, request, rule=rule)
    if refused:
        raise Failure(LIFETIME_OVER_MESSAGES[refused].format(short=short_url(request, code, domain)), 404)
    if preview:
        # A chat or social app's robot: counted as a bot (above), shown the link's card.
        return preview_page(request, link, url, short_url(request, code, domain))
    return redirect_response(url, link.redirect_status)
