"""Shortening without an account (SHORTENER_ALLOW_ANONYMOUS), with Lstu's rapid-shortening ban.

Lstu bans an address that shortens several URLs within about a second for an hour, renews
the ban at every attempt made while banned, and makes it 30 days once those attempts
pile up. The counters live in the database (common/counters.py), so every process sees
the same ban, while Redis is down and after it restarts too.
"""

from django.conf import settings
from django.http import HttpRequest

from common import counters
from shortener import messages
from shortener.errors import Failure
from shortener.throttling import AnonymousBurstThrottle

HOUR = 3600
LONG_BAN_HOURS = 30 * 24


def _ban_key(address: str) -> str:
    return f"shortener:anonymous-ban:{address}"


def check_anonymous_shortening(request: HttpRequest) -> None:
    """Count one anonymous shortening from the client's address, or fail if it is (now) banned."""
    throttle = AnonymousBurstThrottle()
    address = throttle.get_ident(request)
    ban_key = _ban_key(address)
    strikes = counters.hit_live(ban_key, seconds=HOUR)
    if strikes is not None:
        hours = LONG_BAN_HOURS if strikes.value >= settings.SHORTENER_ANONYMOUS_BAN_STRIKES else 1
        if hours != 1:
            counters.prolong(ban_key, seconds=hours * HOUR)
        raise Failure(messages.ANONYMOUS_BANNED.format(hours=hours), 429, retry_after=hours * HOUR)
    burst = throttle.hit(request)
    if burst is not None and not burst.allowed:
        counters.start(ban_key, seconds=HOUR)
        raise Failure(messages.ANONYMOUS_BANNED.format(hours=1), 429, retry_after=HOUR)
