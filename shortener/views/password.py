"""The page on the way to a password-protected link (the WSGI shortcut leaves them all to Django)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from shortener import fastpath, messages
from shortener.errors import Failure
from shortener.models import ShortLink
from shortener.negotiation import request_data, wants_json
from shortener.responses import redirect_response, success
from shortener.services.editing import PASSWORD_MAX_LENGTH, password_matches
from shortener.throttling import LinkPasswordThrottle, enforce


def password_gate(request: HttpRequest, link: fastpath.CachedLink, short: str, refused_messages: dict) -> HttpResponse:
    """GET: the password form (JSON: 401). POST `password`: the redirect (JSON: the URL), or 403.

    Tries are counted per address and link (SHORTENER_LOGIN_RATE_LIMIT per
    SHORTENER_LOGIN_RATE_PERIOD), in the database.
    """
    if request.method != "POST":
        if wants_json(request):
            raise Failure(messages.LINK_PASSWORD_REQUIRED.format(short=short), 401)
        return render(request, "shortener/password.html", {"short": short}, status=401)
    try:
        enforce(LinkPasswordThrottle(), request)
        password = request_data(request).get("password", "")[:PASSWORD_MAX_LENGTH]
        stored = ShortLink.objects.only("password_hash").get(pk=link.pk)
        if not password_matches(stored, password):
            raise Failure(messages.LINK_PASSWORD_WRONG.format(short=short), 403)
    except Failure as failure:
        if wants_json(request):
            raise
        response = render(
            request, "shortener/password.html", {"short": short, "error": failure.msg}, status=failure.status
        )
        if failure.retry_after is not None:
            response["Retry-After"] = str(failure.retry_after)
        return response
    if wants_json(request):
        return success(url=link.url)
    url, rule = fastpath.destination(link, request)
    refused = fastpath.follow(link, request, unlocked=True, rule=rule)
    if refused:
        raise Failure(refused_messages[refused].format(short=short), 404)
    return redirect_response(url, link.redirect_status)
