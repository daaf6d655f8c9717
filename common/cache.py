"""Redis as the shared cache, degrading to process-local memory while Redis is unreachable.

Everything the cache holds can be rebuilt or counted again: rate-limit and ban
counters, cached lookups. So when Redis stops answering, a request must not fail
for it: each call goes to a stand-in instead (process-local memory, so rate limits
count per process; or nothing, for caches a process cannot keep coherent alone) and
Redis is left alone for RETRY_SECONDS, so a dead Redis costs no connection attempt
per request. One warning is logged per WARNING_SECONDS while it lasts, and one line
when Redis is back. `outage()` tells /healthz.
"""

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.dummy import DummyCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

RETRY_SECONDS = 5.0
WARNING_SECONDS = 60.0
STAND_INS = {"memory": LocMemCache, "none": DummyCache}


class RedisOutage:
    """This process's view of Redis: since when it has been failing, and when to try again."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.since: float | None = None
        self.error = ""
        self._retry_at = 0.0
        self._warned_at = 0.0

    def skip_redis(self) -> bool:
        return self.since is not None and time.monotonic() < self._retry_at

    def failed(self, exc: Exception) -> None:
        now = time.monotonic()
        with self._lock:
            if self.since is None:
                self.since = now
            self.error = f"{type(exc).__name__}: {exc}"
            self._retry_at = now + RETRY_SECONDS
            warn = now - self._warned_at >= WARNING_SECONDS
            if warn:
                self._warned_at = now
        if warn:
            logger.warning(
                "Redis is unreachable (%s): rate limits count per process and shared caches are skipped "
                "until it answers again; retrying every %d s.",
                self.error,
                RETRY_SECONDS,
            )

    def recovered(self) -> None:
        with self._lock:
            if self.since is None:
                return
            seconds, self.since, self._warned_at = time.monotonic() - self.since, None, 0.0
        logger.warning("Redis answers again after %.0f s of outage.", seconds)


outage = RedisOutage()


def _degrading(name: str) -> Callable[..., Any]:
    def method(self: "DegradingRedisCache", *args: Any, **kwargs: Any) -> Any:
        if outage.skip_redis():
            return getattr(self.stand_in, name)(*args, **kwargs)
        try:
            result = getattr(RedisCache, name)(self, *args, **kwargs)
        except RedisError as exc:
            outage.failed(exc)
            return getattr(self.stand_in, name)(*args, **kwargs)
        if outage.since is not None:
            outage.recovered()
        return result

    method.__name__ = name
    return method


class DegradingRedisCache(RedisCache):
    """Django's RedisCache; OPTIONS["STAND_IN"] ("memory" or "none") answers while Redis cannot."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        options = dict(params.get("OPTIONS", {}))
        stand_in = STAND_INS[options.pop("STAND_IN", "memory")]
        super().__init__(server, {**params, "OPTIONS": options})
        self.stand_in: BaseCache = stand_in(f"stand-in-for-{server}", {**params, "OPTIONS": {}})

    def ping(self) -> bool:
        """Whether Redis answers now (for /healthz), recording the outage or its end."""
        try:
            self._cache.get_client(write=False).ping()
        except RedisError as exc:
            outage.failed(exc)
            return False
        outage.recovered()
        return True


for _name in (
    "add",
    "get",
    "set",
    "touch",
    "delete",
    "get_many",
    "has_key",
    "incr",
    "set_many",
    "delete_many",
    "clear",
):
    setattr(DegradingRedisCache, _name, _degrading(_name))
