"""Fixed-window rate limits kept in the cache (Redis when REDIS_URL is set).

Counting uses the cache's atomic increment, so parallel requests from one client
cannot slip past the limit together.
"""

import time
from dataclasses import dataclass

from django.core.cache import cache


@dataclass(frozen=True)
class RateLimit:
    allowed: bool
    limit: int
    remaining: int
    retry_after: int  # seconds until the window resets


def _window(key: str, period: int) -> tuple[str, int]:
    now = int(time.time())
    start = now - now % period
    return f"ratelimit:{key}:{period}:{start}", start + period - now


def increment(cache_key: str, *, timeout: int) -> int:
    """Add one to the counter at `cache_key` (made with `timeout` if absent) and return it, atomically."""
    if cache.add(cache_key, 1, timeout=timeout):
        return 1
    try:
        return cache.incr(cache_key)
    except ValueError:  # the key expired between add() and incr()
        cache.add(cache_key, 1, timeout=timeout)
        return 1


def hit(key: str, *, limit: int, period: int = 60) -> RateLimit:
    """Count one request against `key` and say whether it is within `limit` per `period` seconds."""
    cache_key, retry_after = _window(key, period)
    count = increment(cache_key, timeout=period + 1)
    return RateLimit(count <= limit, limit, max(0, limit - count), retry_after)
