"""A shortcut for the hot path: following a short link, answered before the rest of the stack.

A redirect needs no session, user, CSRF token, messages or HTML security headers, and
resolving `/<prefix>/<code>` through the URL patterns walks every other interface's
routes first; together they cost several times the redirect itself. Placed right after
SecurityMiddleware and WhiteNoise, this middleware answers a plain `GET` of a live
code with the same redirect and visit counting as `views.links.follow`, and hands
anything else (HEAD, a query string, JSON wanted, unknown or deleted codes, other
paths) to the normal stack, which answers it as before.
"""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from shortener.negotiation import JSON_TYPE
from shortener.services.links import RESERVED_CODES, link_resolve
from shortener.services.visits import visit_record
from shortener.urls import CodeConverter
from shortener.views.links import redirect_response

CODE_RE = CodeConverter.regex_compiled


class RedirectShortcutMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        code = self._plain_visit_code(request)
        if code is not None:
            link = link_resolve(code)
            if link is not None and not link.is_deleted:
                visit_record(link_id=link.pk, request=request)
                return redirect_response(link.url)
        return self.get_response(request)

    @staticmethod
    def _plain_visit_code(request: HttpRequest) -> str | None:
        """The code of a `GET /<prefix>/<code>` that wants the redirect itself, else None."""
        if request.method != "GET" or request.META.get("QUERY_STRING"):
            return None
        # Validates the Host header as CommonMiddleware would (DisallowedHost: 400).
        host = request.get_host()
        path = request.path_info
        if settings.SHORTENER_HOST and host.split(":", 1)[0].lower() == settings.SHORTENER_HOST:
            code = path[1:]
        elif settings.SHORTENER_PREFIX and path.startswith(f"/{settings.SHORTENER_PREFIX}/"):
            code = path[len(settings.SHORTENER_PREFIX) + 2 :]
        else:
            # Without a prefix the codes share the main host's paths with every other page.
            return None
        if not CODE_RE.fullmatch(code) or code.lower() in RESERVED_CODES:
            return None
        if request.META.get("HTTP_ACCEPT") and request.get_preferred_type(["text/html", JSON_TYPE]) == JSON_TYPE:
            return None
        return code
