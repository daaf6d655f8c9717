from common import ratelimit


class Failure(Exception):
    """An operation failed in a way the client should be told about, with its HTTP status."""

    def __init__(self, msg: str, status: int = 400, *, retry_after: int | None = None) -> None:
        super().__init__(msg)
        self.msg = msg
        self.status = status
        self.retry_after = retry_after


def enforce_rate_limit(key: str, *, limit: int, period: int, message: str) -> None:
    """Count one attempt against `key`; past `limit` per `period` seconds, fail with 429 and `message`."""
    outcome = ratelimit.hit(key, limit=limit, period=period)
    if not outcome.allowed:
        seconds = outcome.retry_after
        raise Failure(message.format(seconds=seconds), 429, retry_after=seconds)
