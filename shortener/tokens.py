"""Personal API tokens (`Authorization: Bearer shr_…`) on the operations that accept them.

A token request acts as the token's user: no session, no CSRF token (the header is
not something a browser sends by itself), JSON answers, never admin mode, and at most
SHORTENER_TOKEN_RATE_LIMIT requests a minute per token. A reports or pastes key is
not a shortener token, and a shortener token opens neither of those interfaces. A
read token (common.api_keys.Scope) is refused anything but GET, HEAD and OPTIONS.
"""

from django.http import HttpRequest

from shortener import messages
from shortener.errors import Failure
from shortener.formats import TOKEN_PRESENTED_ATTR
from shortener.models import ApiKey
from shortener.throttling import TokenThrottle, enforce

TOKEN_ATTR = "shortener_api_key"


def has_token(request: HttpRequest) -> bool:
    """Whether the request was authenticated by a token (see authenticate_token)."""
    return getattr(request, TOKEN_ATTR, None) is not None


def authenticate_token(request: HttpRequest) -> None:
    """Act as the user of the request's Bearer token, if it has an Authorization header at all."""
    header = request.META.get("HTTP_AUTHORIZATION", "").strip()
    if not header:
        return
    # As soon as a token is presented, so that even its refusal is answered in JSON (formats.wants_json).
    setattr(request, TOKEN_PRESENTED_ATTR, True)
    scheme, _, raw_key = header.partition(" ")
    api_key = ApiKey.authenticate(raw_key.strip()) if scheme.lower() == "bearer" else None
    if api_key is None:
        raise Failure(messages.TOKEN_INVALID, 401)
    if not api_key.allows(request.method):
        raise Failure(messages.TOKEN_READ_ONLY, 403)
    setattr(request, TOKEN_ATTR, api_key)
    request.user = api_key.user
    enforce(TokenThrottle(), request)
