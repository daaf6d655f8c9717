"""How often interface B may be called: writes per API key, reads per key or, without one, per client address;
guesses at a paste's password per paste and address, and password checks (right or wrong) per address."""

from django.db.models import F
from django.http import HttpRequest

from common.models import LimitCounter
from common.throttling import DurableThrottle, Throttle, per_period
from pastes.errors import TooManyPasswordAttempts, TooManyPasswordChecks

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


class PasswordCheckThrottle(DurableThrottle):
    """Passwords checked for one address, right or wrong, whatever the paste: PASTES_PASSWORD_CHECK_LIMIT
    per PASTES_PASSWORD_CHECK_PERIOD.

    A check hashes the password, slowly on purpose (a few hundred milliseconds of CPU), so a right
    password sent again and again, as the API asks on every read, costs as much as guessing: 16
    parallel reads of a protected paste held /healthz for up to 2.8 s. This bounds that work per
    address. The page remembers a paste unlocked in the reader's session and checks no more.
    """

    scope = "pastes:password-checks"
    limit_setting = "PASTES_PASSWORD_CHECK_LIMIT"
    period_setting = "PASTES_PASSWORD_CHECK_PERIOD"

    def get_key(self, request: HttpRequest) -> str:
        return self.get_ident(request)

    def spend(self, request: HttpRequest) -> None:
        """Count one check; past the limit, raise TooManyPasswordChecks (429)."""
        outcome = self.hit(request)
        if not outcome.allowed:
            period = per_period(self.get_rate(request)[1])
            raise TooManyPasswordChecks(limit=outcome.limit, period=period, retry_after=outcome.retry_after)


class PastePasswordThrottle(DurableThrottle):
    """Guesses at one paste's password from one address: PASTES_PASSWORD_RATE_LIMIT per PASTES_PASSWORD_RATE_PERIOD.

    Counted in the database like the shortener's sign-in limit (common.throttling.DurableThrottle),
    so the limit holds while Redis is down or after it restarts empty. Every attempt is counted
    before the password is checked, so parallel guesses cannot slip past the limit together; a
    right password then gives its attempt back (`release`), so a reader who knows it is never limited
    by guesses, only by the checks of PasswordCheckThrottle, which every attempt also counts.
    """

    scope = "pastes:password"
    limit_setting = "PASTES_PASSWORD_RATE_LIMIT"
    period_setting = "PASTES_PASSWORD_RATE_PERIOD"

    def __init__(self, paste_id: str) -> None:
        self.paste_id = paste_id

    def get_key(self, request: HttpRequest) -> str:
        return f"{self.paste_id}:{self.get_ident(request)}"

    def attempt(self, request: HttpRequest) -> None:
        """Count one attempt, and one check for the address; past either limit, raise its 429 without checking it."""
        PasswordCheckThrottle().spend(request)
        outcome = self.hit(request)
        if not outcome.allowed:
            raise TooManyPasswordAttempts(retry_after=outcome.retry_after)

    def release(self, request: HttpRequest) -> None:
        key = f"{self.scope}:{self.get_key(request)}"
        # A count never reaches 0 (a constraint): the last attempt given back removes the row.
        LimitCounter.objects.filter(key=key, count=1).delete()
        LimitCounter.objects.filter(key=key, count__gt=1).update(count=F("count") - 1)
