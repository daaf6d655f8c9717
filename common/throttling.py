"""One way to rate-limit: a fixed window per scope and client, counted in the shared cache.

A subclass names its scope, the settings that hold its limit and period, and whose
requests count together:

    class CreateThrottle(Throttle):
        scope = "shortener:create"
        limit_setting = "SHORTENER_CREATE_RATE_LIMIT"
        period_setting = "SHORTENER_CREATE_RATE_PERIOD"  # or `period = 60`

It is a DRF throttle (`throttle_classes = [...]`), and plain Django views call
`hit(request)` themselves. Counting is common.ratelimit's atomic cache increment, so
parallel requests from one client cannot slip past the limit together. Without Redis that
cache is each process's memory, so a limit that guards a secret counts elsewhere
(`count()`): DurableThrottle in the database, SharedThrottle in Redis or else the database.
"""

from django.conf import settings
from django.http import HttpRequest
from rest_framework.exceptions import Throttled
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from common import counters, ratelimit
from common.http import client_ip
from common.ratelimit import RateLimit


class Throttle(BaseThrottle):
    scope = ""
    limit_setting = ""
    period_setting = ""
    period = 60  # seconds, when no period_setting is named

    def get_rate(self, request: HttpRequest) -> tuple[int, int]:
        """(requests allowed, window in seconds), read from settings on each request."""
        period = getattr(settings, self.period_setting) if self.period_setting else self.period
        return getattr(settings, self.limit_setting), period

    def get_key(self, request: HttpRequest) -> str | None:
        """Whose requests count together (the client's address by default); None: not limited."""
        return f"ip:{self.get_ident(request)}"

    def get_ident(self, request: HttpRequest) -> str:
        return client_ip(request)

    def denied_message(self, limit: int, period: int) -> str | None:
        """The 429's detail for DRF views; None keeps DRF's own wording."""
        return None

    def hit(self, request: HttpRequest) -> RateLimit | None:
        """Count this request; the outcome (also kept on `request.rate_limit`), or None if not limited."""
        key = self.get_key(request)
        if key is None:
            return None
        limit, period = self.get_rate(request)
        outcome = self.count(f"{self.scope}:{key}", limit=limit, period=period)
        # Kept on the request so that every answer, not only the 429, can show the limit.
        request.rate_limit = outcome
        return outcome

    def count(self, key: str, *, limit: int, period: int) -> RateLimit:
        """Count one request against `key` where this throttle keeps its counts (here, the cache)."""
        return ratelimit.hit(key, limit=limit, period=period)

    def allow_request(self, request: HttpRequest, view: APIView) -> bool:
        self.outcome = self.hit(request)
        if self.outcome is None or self.outcome.allowed:
            return True
        message = self.denied_message(self.outcome.limit, self.get_rate(request)[1])
        if message is not None:
            raise Throttled(wait=self.outcome.retry_after, detail=message)
        return False

    def wait(self) -> float | None:
        return self.outcome.retry_after if self.outcome is not None else None


class DurableThrottle(Throttle):
    """A throttle counted in the database (common/counters.py): exact across processes, and it
    holds while Redis is down or restarted. For limits on guessing a secret (passwords)."""

    def count(self, key: str, *, limit: int, period: int) -> RateLimit:
        count = counters.hit(key, seconds=period)
        return RateLimit(count.value <= limit, limit, max(0, limit - count.value), count.seconds_left)


class SharedThrottle(DurableThrottle):
    """A throttle counted in Redis when REDIS_URL is set, else in the database: exact across processes.

    For limits counted on every request of an interface, where a database write per request is
    worth saving when Redis is there; the plain cache would be each process's memory without it.
    While Redis is down, such a limit counts per process (common/cache.py), as the cache's do.
    """

    def count(self, key: str, *, limit: int, period: int) -> RateLimit:
        if settings.REDIS_URL:
            return ratelimit.hit(key, limit=limit, period=period)
        return super().count(key, limit=limit, period=period)


def per_period(period: int) -> str:
    """'per minute' for 60 seconds, else 'per N seconds': how a limit's window reads in a message."""
    return "per minute" if period == 60 else f"per {period} seconds"
