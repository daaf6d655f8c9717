"""Counters that must outlive Redis: password tries (links, admin mode, the admin's sign-in, pastes,
report and audit pages), anonymous-shortening bans, and interface A's API limit when there is no Redis.

Each is one LimitCounter row, changed by one statement (an upsert, or an UPDATE … RETURNING),
so parallel requests in any number of processes count exactly. Rate limits that only slow
clients down (tokens, creates, imports, interface B's reads and writes) stay in the cache, where
a Redis outage costs at most a per-process allowance (common/cache.py); these decide whether
someone may keep guessing a password or keep shortening, so the database is their record: a
ban holds while Redis is down and after it restarts empty (common.throttling's DurableThrottle).
"""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db import connection
from django.utils import timezone

from common.models import LimitCounter
from common.pruning import Schedule

TABLE = connection.ops.quote_name(LimitCounter._meta.db_table)
# Quoted: KEY is a keyword in SQLite's and PostgreSQL's grammar, COUNT a function.
KEY, COUNT, EXPIRES = (connection.ops.quote_name(column) for column in ("key", "count", "expires_at"))
# Expired rows are taken up again by their key's next count; the rows of keys never counted again
# are deleted a day after they expired, by the first count of each PRUNING period (per process).
PRUNE_AFTER = timedelta(days=1)
PRUNING = Schedule(timedelta(hours=6))


@dataclass(frozen=True)
class Count:
    value: int
    expires_at: datetime

    @property
    def seconds_left(self) -> int:
        return max(1, int((self.expires_at - timezone.now()).total_seconds() + 0.999))


def _db(value: datetime) -> object:
    return connection.ops.adapt_datetimefield_value(value)


def _read(row: tuple | None) -> Count | None:
    if row is None:
        return None
    value, expires_at = row
    if isinstance(expires_at, str):  # SQLite through a raw cursor
        expires_at = datetime.fromisoformat(expires_at)
    if timezone.is_naive(expires_at):
        expires_at = expires_at.replace(tzinfo=UTC)
    return Count(value, expires_at)


def hit(key: str, *, seconds: int, prolong: bool = False) -> Count:
    """Add one to `key`'s count; an absent or expired count starts at one and lives `seconds`.

    `prolong`: every hit makes the count live `seconds` from now (a ban that each attempt renews).
    """
    now = timezone.now()
    expired = f"{TABLE}.{EXPIRES} <= %s"
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {TABLE} ({KEY}, {COUNT}, {EXPIRES}) VALUES (%s, 1, %s) "
            f"ON CONFLICT ({KEY}) DO UPDATE SET "
            f"{COUNT} = CASE WHEN {expired} THEN 1 ELSE {TABLE}.{COUNT} + 1 END, "
            f"{EXPIRES} = CASE WHEN {expired} OR %s THEN excluded.{EXPIRES} ELSE {TABLE}.{EXPIRES} END "
            f"RETURNING {COUNT}, {EXPIRES}",
            [key, _db(now + timedelta(seconds=seconds)), _db(now), _db(now), prolong],
        )
        count = _read(cursor.fetchone())
        if PRUNING.due():
            cursor.execute(f"DELETE FROM {TABLE} WHERE {EXPIRES} < %s", [_db(now - PRUNE_AFTER)])
    return count


def hit_live(key: str, *, seconds: int) -> Count | None:
    """Add one to `key`'s count if it is live, making it live `seconds` from now; None if there is none."""
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {TABLE} SET {COUNT} = {COUNT} + 1, {EXPIRES} = %s WHERE {KEY} = %s AND {EXPIRES} > %s "
            f"RETURNING {COUNT}, {EXPIRES}",
            [_db(now + timedelta(seconds=seconds)), key, _db(now)],
        )
        return _read(cursor.fetchone())


def prolong(key: str, *, seconds: int) -> None:
    """Make `key`'s live count live `seconds` from now."""
    now = timezone.now()
    LimitCounter.objects.filter(key=key, expires_at__gt=now).update(expires_at=now + timedelta(seconds=seconds))


def start(key: str, *, seconds: int) -> None:
    """Set `key`'s count to one, living `seconds`."""
    now = timezone.now()
    until = _db(now + timedelta(seconds=seconds))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {TABLE} ({KEY}, {COUNT}, {EXPIRES}) VALUES (%s, 1, %s) "
            f"ON CONFLICT ({KEY}) DO UPDATE SET {COUNT} = 1, {EXPIRES} = excluded.{EXPIRES}",
            [key, until],
        )


def clear(key: str) -> None:
    LimitCounter.objects.filter(key=key).delete()
