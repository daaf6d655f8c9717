"""JSON or HTML, per request: format choice, request data, the CSRF policy (failures: shortener.errors).

Every shortener operation answers JSON when `_format=json` is in the query or the
form, when the body is JSON, or when `Accept` prefers `application/json`; else HTML.

CSRF policy: browsers posting HTML forms must send Django's CSRF token. JSON API
calls (the `_format=json` / JSON-body / Accept-JSON requests above) are exempt
*unless* the request carries a cross-site marker: an `Origin` other than this site
(or a trusted origin), or `Sec-Fetch-Site` other than `same-origin`/`none`. Browsers
always send those on cross-site POSTs, so a hostile page cannot use `_format=json`
to skip the token, while scripts (curl, API clients) need no token. The session
cookie is SameSite=Lax, so cross-site POSTs never carry a session anyway.
"""

import json
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.views.decorators.csrf import csrf_exempt

from shortener import messages
from shortener.errors import JSON_TYPE, Failure, failure_response

SAFE_FETCH_SITES = {"same-origin", "none"}

type View = Callable[..., HttpResponse]


def _has_json_body(request: HttpRequest) -> bool:
    return request.method == "POST" and request.content_type == JSON_TYPE


def wants_json(request: HttpRequest) -> bool:
    if "_format" in request.GET:
        return request.GET["_format"] == "json"
    if _has_json_body(request):
        return True
    if request.method == "POST" and "_format" in request.POST:
        return request.POST["_format"] == "json"
    return request.get_preferred_type(["text/html", JSON_TYPE]) == JSON_TYPE


def request_data(request: HttpRequest) -> dict[str, str]:
    """The POST fields, from a form or a JSON object, as strings."""
    if _has_json_body(request):
        data = _json_object(request)
    else:
        data = {key: request.POST.get(key, "") for key in request.POST}
    for key, value in data.items():
        # PostgreSQL cannot store NUL, and no login, URL or password needs one.
        if "\x00" in value:
            raise Failure(messages.FIELD_HAS_NUL.format(field=key))
    return data


def _json_object(request: HttpRequest) -> dict[str, str]:
    try:
        data = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise Failure(messages.BAD_JSON) from None
    if not isinstance(data, dict):
        raise Failure(messages.BAD_JSON)
    for key, value in data.items():
        if not isinstance(value, str):
            raise Failure(messages.FIELD_NOT_TEXT.format(field=key))
    return data


def success(**fields: Any) -> JsonResponse:
    return JsonResponse({"success": True, **fields})


def is_cross_site(request: HttpRequest) -> bool:
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site and fetch_site not in SAFE_FETCH_SITES:
        return True
    origin = request.headers.get("Origin")
    if not origin:
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


def endpoint(*methods: str, csrf: bool = False) -> Callable[[View], View]:
    """Allow only `methods`, apply the CSRF policy above to POSTs, and answer failures in the right format.

    HEAD must be listed to be allowed: GETs that change state (logout, delete) leave it out.
    """
    allowed = set(methods)

    def decorate(view: View) -> View:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            try:
                if request.method not in allowed:
                    raise Failure(messages.METHOD_NOT_ALLOWED, 405)
                if csrf and request.method == "POST":
                    _check_csrf(request)
                return view(request, *args, **kwargs)
            except Failure as failure:
                response = failure_response(request, failure)
                if failure.status == 405:
                    response["Allow"] = ", ".join(sorted(allowed))
                return response

        return csrf_exempt(wrapped)

    return decorate
