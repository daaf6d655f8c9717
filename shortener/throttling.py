"""How often the shortener may be asked to shorten or to try a link's password, and the 429 past the limit.

Signing in is limited on its failures, per account and per address: accounts/signin_limits.py.
"""

from django.http import HttpRequest

from common.throttling import DurableThrottle, Throttle
from shortener import messages
from shortener.errors import Failure


class CreateThrottle(Throttle):
    """SHORTENER_CREATE_RATE_LIMIT links per SHORTENER_CREATE_RATE_PERIOD seconds per user."""

    scope = "shortener:create"
    limit_setting = "SHORTENER_CREATE_RATE_LIMIT"
    period_setting = "SHORTENER_CREATE_RATE_PERIOD"
    message = messages.TOO_MANY_LINKS

    def get_key(self, request: HttpRequest) -> str:
        return str(request.user.pk)


class TokenThrottle(Throttle):
    """SHORTENER_TOKEN_RATE_LIMIT requests a minute per personal API token, whatever they do."""

    scope = "shortener:token"
    limit_setting = "SHORTENER_TOKEN_RATE_LIMIT"
    period = 60
    message = messages.TOO_MANY_TOKEN_REQUESTS

    def get_key(self, request: HttpRequest) -> str | None:
        api_key = getattr(request, "shortener_api_key", None)  # set by shortener.tokens
        return None if api_key is None else str(api_key.pk)


class ImportThrottle(Throttle):
    """SHORTENER_IMPORT_RATE_LIMIT imports an hour per user."""

    scope = "shortener:import"
    limit_setting = "SHORTENER_IMPORT_RATE_LIMIT"
    period = 3600
    message = messages.TOO_MANY_IMPORTS

    def get_key(self, request: HttpRequest) -> str:
        return str(request.user.pk)


class AnonymousBurstThrottle(DurableThrottle):
    """SHORTENER_ANONYMOUS_BURST shortenings per SHORTENER_ANONYMOUS_BURST_SECONDS per address (services.anonymous)."""

    scope = "shortener:anonymous-create"
    limit_setting = "SHORTENER_ANONYMOUS_BURST"
    period_setting = "SHORTENER_ANONYMOUS_BURST_SECONDS"
    message = messages.ANONYMOUS_BANNED

    def get_key(self, request: HttpRequest) -> str:
        return self.get_ident(request)


def enforce(throttle: Throttle, request: HttpRequest) -> None:
    """Count one attempt; past the limit, fail with 429, the throttle's message and Retry-After."""
    outcome = throttle.hit(request)
    if outcome is not None and not outcome.allowed:
        seconds = outcome.retry_after
        raise Failure(throttle.message.format(seconds=seconds), 429, retry_after=seconds)


class LinkPasswordThrottle(DurableThrottle):
    """Password tries on a protected link (SHORTENER_LOGIN_RATE_*), per address and link."""

    scope = "shortener:link-password"
    limit_setting = "SHORTENER_LOGIN_RATE_LIMIT"
    period_setting = "SHORTENER_LOGIN_RATE_PERIOD"
    message = messages.TOO_MANY_PASSWORD_TRIES

    def get_key(self, request: HttpRequest) -> str:
        return f"{self.get_ident(request)}:{request.resolver_match.kwargs.get('code', '')}"
