"""How often interface B may be called: writes per API key, reads per key or, without one, per client address."""

from django.http import HttpRequest

from common.throttling import Throttle, per_period

READ_METHODS = ("GET", "HEAD", "OPTIONS")


class PasteThrottle(Throttle):
    kind = ""  # "read" or "write": which requests this throttle counts
    period_setting = "PASTES_RATE_PERIOD"

    def get_key(self, request: HttpRequest) -> str | None:
        if (request.method in READ_METHODS) != (self.kind == "read"):
            return None
        return f"key:{request.auth.pk}" if request.auth is not None else f"ip:{self.get_ident(request)}"

    def denied_message(self, limit: int, period: int) -> str:
        return f"Rate limit exceeded: at most {limit} {self.kind} requests {per_period(period)}."


class PasteReadThrottle(PasteThrottle):
    kind = "read"
    scope = "pastes:read"
    limit_setting = "PASTES_READ_RATE_LIMIT"


class PasteWriteThrottle(PasteThrottle):
    kind = "write"
    scope = "pastes:write"
    limit_setting = "PASTES_WRITE_RATE_LIMIT"
