"""The main page, shortening, and following a short link (the hot path)."""

from django.conf import settings
from django.contrib import messages as flash
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, HttpResponseRedirect
from django.shortcuts import redirect, render

from shortener import fastpath, messages
from shortener.errors import Failure
from shortener.models import ShortLink
from shortener.negotiation import endpoint, request_data, success, wants_json
from shortener.services.admin_mode import is_admin
from shortener.services.links import clean_custom, clean_url, link_create
from shortener.throttling import CreateThrottle, enforce
from shortener.views.base import login_required_response, qr_svg, short_url

# The code just created, shown once on the main page after the redirect.
LAST_CREATED_KEY = "shortener_last_created"


@endpoint("GET", "HEAD")
def index(request: HttpRequest) -> HttpResponse:
    if wants_json(request):
        return success(user=request.user.get_username() or None, admin=is_admin(request))
    context: dict[str, object] = {}
    code = request.session.pop(LAST_CREATED_KEY, None)
    if code and request.user.is_authenticated:
        link = ShortLink.objects.filter(code=code, owner=request.user, deleted_at__isnull=True).first()
        if link:
            short = short_url(request, link.code)
            context["result"] = {"short": short, "url": link.url, "qr": qr_svg(short)}
    return render(request, "shortener/index.html", context)


@endpoint("POST", csrf=True)
def create(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return login_required_response(request)
    data = request_data(request)
    # Lstu's field names are accepted too, so its clients work unchanged.
    raw_url = data.get("shorturl", data.get("lsturl", ""))
    raw_custom = data.get("shorturl-custom", data.get("lsturl-custom", ""))
    try:
        enforce(CreateThrottle(), request)
        url = clean_url(raw_url)
        link = link_create(owner_id=request.user.pk, url=url, custom=clean_custom(raw_custom, url=url))
    except Failure as failure:
        if wants_json(request):
            raise
        context = {"error": failure.msg, "url_value": raw_url, "custom_value": raw_custom}
        return render(request, "shortener/index.html", context, status=failure.status)

    short = short_url(request, link.code)
    if wants_json(request):
        return success(url=link.url, short=short)
    request.session[LAST_CREATED_KEY] = link.code
    flash.success(request, messages.LINK_CREATED.format(short=short))
    return redirect("shortener:index")


@endpoint("GET", "HEAD")
def follow(request: HttpRequest, code: str) -> HttpResponse:
    """Follow a short link: the redirects that reach Django (the others never get here).

    A plain GET of a code already cached in this process is answered by the WSGI shortcut
    (shortener/fastpath/wsgi.py) before Django's URL resolution and middleware: only host
    validation, SecurityMiddleware's HTTPS redirect and its security headers apply to it.
    This view answers the rest: the first visit of a code in a process, HEAD, query strings,
    unknown and deleted codes, and every request when visits are written during the request.
    """
    link = fastpath.resolve(code)
    if link is None or link.is_deleted:
        message = messages.LINK_GONE if link else messages.LINK_UNKNOWN
        raise Failure(message.format(short=short_url(request, code)), 404)
    if wants_json(request):
        return success(url=link.url)
    fastpath.record_visit(link_id=link.pk, request=request)
    return redirect_response(link.url)


def redirect_response(url: str) -> HttpResponse:
    """The answer to a visit (here and in the WSGI shortcut, shortener/fastpath/wsgi.py)."""
    if settings.SHORTENER_REDIRECT_PERMANENT:
        return HttpResponsePermanentRedirect(url)
    return HttpResponseRedirect(url)
