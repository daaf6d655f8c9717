"""The shortener's operations: allowed methods, request data, the CSRF policy (failures: shortener.errors).

Whether an answer is JSON or HTML is shortener.formats.wants_json's decision (re-exported
here for the views): the same one the error pages and the WSGI shortcut make.

CSRF policy: browsers posting HTML forms must send Django's CSRF token. JSON API
calls (the `_format=json` / JSON-body / Accept-JSON requests above) are exempt
*unless* the request carries a cross-site marker: an `Origin` other than this site
(or a trusted origin, or a browser extension's), or `Sec-Fetch-Site` other than
`same-origin`/`none`. Browsers
always send those on cross-site POSTs, so a hostile page cannot use `_format=json`
to skip the token, while scripts (curl, API clients) need no token. The session
cookie is SameSite=Lax, so cross-site POSTs never carry a session anyway.
"""

from collections.abc import Callable
from functools import wraps
from typing import Any

import orjson
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.views.decorators.csrf import csrf_exempt

from common import parsers
from shortener import messages
from shortener.errors import Failure, failure_response
from shortener.formats import JSON_DEFAULT_ATTR, JSON_TYPE, SUFFIX_ATTR, has_json_body, wants_json
from shortener.tokens import authenticate_token, has_token

__all__ = ["JSON_TYPE", "SUFFIX_ATTR", "endpoint", "is_cross_site", "request_data", "wants_json"]

SAFE_FETCH_SITES = {"same-origin", "none"}
# Only an installed extension can send these origins, and one with access to this site
# could read its cookies anyway: no web page can use them to forge a request.
EXTENSION_ORIGIN_SCHEMES = ("moz-extension://", "chrome-extension://", "safari-web-extension://")
# Fields a JSON body may give as whole numbers rather than strings.
NUMERIC_FIELDS = frozenset({"max_visits", "expires_at", "redirect_status"})
# Issue 46: `rules` is a JSON array in a JSON body (a JSON-encoded string in a form), and the
# forwarding switches may be JSON booleans; both are read as their form's strings.
STRUCTURED_FIELDS = frozenset({"rules"})
BOOLEAN_FIELDS = frozenset({"forward_query", "forward_path"})

type View = Callable[..., HttpResponse]


def request_data(request: HttpRequest) -> dict[str, str]:
    """The POST fields, from a form or a JSON object, as strings."""
    data = _json_object(request) if has_json_body(request) else {key: request.POST.get(key, "") for key in request.POST}
    for key, value in data.items():
        # PostgreSQL cannot store NUL, and no login, URL or password needs one.
        if "\x00" in value:
            raise Failure(messages.FIELD_HAS_NUL.format(field=key))
    return data


def _json_object(request: HttpRequest) -> dict[str, str]:
    try:
        data = parsers.loads(request.body or b"{}")
    except parsers.MalformedJSON:
        raise Failure(messages.BAD_JSON) from None
    if not isinstance(data, dict):
        raise Failure(messages.BAD_JSON)
    for key, value in data.items():
        # A count or a Unix time may come as a JSON number; true/false are not numbers here.
        if key in NUMERIC_FIELDS and isinstance(value, int) and not isinstance(value, bool):
            data[key] = str(value)
        elif key in STRUCTURED_FIELDS and isinstance(value, list):
            data[key] = orjson.dumps(value).decode()
        elif key in BOOLEAN_FIELDS and isinstance(value, bool):
            data[key] = "1" if value else "0"
        elif not isinstance(value, str):
            raise Failure(messages.FIELD_NOT_TEXT.format(field=key))
    return data


def is_cross_site(request: HttpRequest) -> bool:
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site and fetch_site not in SAFE_FETCH_SITES:
        return True
    origin = request.headers.get("Origin")
    if not origin or origin.startswith(EXTENSION_ORIGIN_SCHEMES):
        return False
    own = f"{request.scheme}://{request.get_host()}"
    return origin != own and origin not in settings.CSRF_TRUSTED_ORIGINS


def _check_csrf(request: HttpRequest) -> None:
    if wants_json(request) and not is_cross_site(request):
        return
    # The middleware's own check, run by hand because the view itself is csrf_exempt.
    rejected = CsrfViewMiddleware(lambda _request: HttpResponse()).process_view(request, None, (), {})
    if rejected is not None:
        raise Failure(messages.CSRF_FAILED, 403)


def endpoint(
    *methods: str, csrf: bool = False, json_by_default: bool = False, token: bool = False
) -> Callable[[View], View]:
    """Allow only `methods`, apply the CSRF policy above to POSTs and PATCHes, and answer failures in the right format.

    HEAD must be listed to be allowed: GETs that change state (logout, delete) leave it out.
    With `token`, a Bearer token (shortener.tokens) may stand for the session, and needs no CSRF token.
    A URL pattern may pass `format_suffix` ("json" for a path ending in `.json`).
    """
    allowed = set(methods)

    def decorate(view: View) -> View:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, format_suffix: str | None = None, **kwargs: Any) -> HttpResponse:
            setattr(request, SUFFIX_ATTR, format_suffix)
            setattr(request, JSON_DEFAULT_ATTR, json_by_default)
            try:
                if request.method not in allowed:
                    raise Failure(messages.METHOD_NOT_ALLOWED, 405)
                if token:
                    authenticate_token(request)
                if csrf and request.method in ("POST", "PATCH") and not has_token(request):
                    _check_csrf(request)
                return view(request, *args, **kwargs)
            except Failure as failure:
                response = failure_response(request, failure)
                if failure.status == 405:
                    response["Allow"] = ", ".join(sorted(allowed))
                if failure.status == 401 and token:
                    response["WWW-Authenticate"] = "Bearer"
                return response

        return csrf_exempt(wrapped)

    return decorate
