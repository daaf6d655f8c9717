"""Link lifetime: an optional expiry time and maximum number of unique visits, checked at creation."""

from datetime import UTC, datetime, timedelta

from django.utils import timezone
from django.utils.dateparse import parse_datetime

from shortener import messages
from shortener.errors import Failure

# Far enough for any real use, near enough for every database's datetime range.
LONGEST_LIFETIME = timedelta(days=100 * 365)
MAX_VISITS_LIMIT = 2**31 - 1  # PositiveIntegerField on every backend
UNIX_TIME_DIGITS = 12


def clean_expires_at(raw: str) -> datetime | None:
    """An ISO 8601 date and time (UTC when it has no offset) or a Unix time, in the future."""
    raw = raw.strip()
    if not raw:
        return None
    if raw.isdigit() and len(raw) <= UNIX_TIME_DIGITS:
        expires_at = datetime.fromtimestamp(int(raw), UTC)
    else:
        try:
            expires_at = parse_datetime(raw)
        except ValueError:
            expires_at = None
        if expires_at is None:
            raise Failure(messages.EXPIRES_INVALID)
        if timezone.is_naive(expires_at):
            expires_at = expires_at.replace(tzinfo=UTC)
    now = timezone.now()
    if expires_at <= now:
        raise Failure(messages.EXPIRES_IN_PAST)
    if expires_at > now + LONGEST_LIFETIME:
        raise Failure(messages.EXPIRES_TOO_FAR)
    return expires_at


def clean_max_visits(raw: str) -> int | None:
    raw = raw.strip()
    if not raw:
        return None
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_VISITS_LIMIT:
        raise Failure(messages.MAX_VISITS_INVALID.format(limit=MAX_VISITS_LIMIT))
    return int(raw)
