"""Shortening without an account (SHORTENER_ALLOW_ANONYMOUS), with Lstu's rapid-shortening ban.

Lstu bans an address that shortens several URLs within about a second for an hour, renews
the ban at every attempt made while banned, and makes it 30 days once those attempts
pile up. The counters live in the shared cache (Redis when REDIS_URL is set), so every
process sees the same ban.
"""

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

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
    try:
        strikes = cache.incr(ban_key)
    except ValueError:  # no ban in force
        strikes = None
    if strikes is not None:
        hours = LONG_BAN_HOURS if strikes >= settings.SHORTENER_ANONYMOUS_BAN_STRIKES else 1
        cache.touch(ban_key, hours * HOUR)
        raise Failure(messages.ANONYMOUS_BANNED.format(hours=hours), 429, retry_after=hours * HOUR)
    burst = throttle.hit(request)
    if burst is not None and not burst.allowed:
        cache.set(ban_key, 1, timeout=HOUR)
        raise Failure(messages.ANONYMOUS_BANNED.format(hours=1), 429, retry_after=HOUR)
