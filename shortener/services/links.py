"""Creating, finding and deleting short links; the code → target cache the redirect relies on."""

import logging
import os
import re
import threading
import time
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Model, Q, QuerySet
from django.utils import timezone

from shortener import messages
from shortener.caching import cache
from shortener.errors import Failure
from shortener.models import (
    CODE_ALPHABET,
    CODE_MAX_LENGTH,
    DEDUPLICATED_LINKS,
    URL_MAX_LENGTH,
    LinkCacheVersion,
    ShortLink,
)

# Route names and words users could mistake for pages; compared case-insensitively.
RESERVED_CODES = frozenset(
    {"a", "d", "stats", "login", "logout", "logged-out", "api", "admin", "static", "media", "cookie", "fullstats"}
    | {"tokens", "export", "import"}
)
CUSTOM_CODE_RE = re.compile(rf"[A-Za-z0-9_-]{{1,{CODE_MAX_LENGTH}}}")
GENERATE_ATTEMPTS = 10

logger = logging.getLogger(__name__)

LINK_TABLE = ShortLink._meta.db_table

_url_validator = URLValidator(schemes=["http", "https"])


@dataclass(frozen=True, slots=True)
class CachedLink:
    """What the redirect needs, small enough to keep in the cache."""

    pk: int
    url: str
    is_deleted: bool


# How often each process's watcher thread reads LinkCacheVersion: the longest a link
# changed or deleted in another process may keep redirecting here.
VERSION_CHECK_SECONDS = 1.0
VERSION_TABLE = LinkCacheVersion._meta.db_table


def links_version() -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT version FROM {VERSION_TABLE} WHERE id = 1")
        row = cursor.fetchone()
    return row[0] if row else 0


def bump_links_version() -> None:
    """Tell every process to drop its cached lookups (runs in the changing transaction)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {VERSION_TABLE} (id, version) VALUES (1, 1) "
            f"ON CONFLICT (id) DO UPDATE SET version = {VERSION_TABLE}.version + 1"
        )


class LocalLinks:
    """This process's code → link copies: the redirect's lookup without a cache round trip or unpickling.

    Entries live SHORTENER_CACHE_SECONDS. A change in this process clears them at once;
    a change in another process is seen through LinkCacheVersion within VERSION_CHECK_SECONDS,
    by a thread of this process: a redirect never waits for that query (measured: doing it
    in the request sent the redirect's p99 from 13 ms to over 700 ms under load).
    """

    def __init__(self) -> None:
        self._entries: dict[str, tuple[CachedLink, float]] = {}
        self._version: int | None = None
        # Counts clear()s, so that a preload started before a change does not bring back stale links.
        self._generation = 0
        self._started_pid: int | None = None

    def get(self, code: str) -> CachedLink | None:
        now = time.monotonic()
        entry = self._entries.get(code)
        if entry is not None and entry[1] > now:
            return entry[0]
        return None

    def put(self, code: str, link: CachedLink) -> None:
        if len(self._entries) >= settings.SHORTENER_CACHE_MAX_ENTRIES:
            # Oldest first; another thread may be changing the dict meanwhile, which is harmless.
            with suppress(RuntimeError, StopIteration, KeyError):
                del self._entries[next(iter(self._entries))]
        self._entries[code] = (link, time.monotonic() + settings.SHORTENER_CACHE_SECONDS)

    def clear(self) -> None:
        self._generation += 1
        self._entries.clear()

    def check_version(self) -> None:
        """Drop every copy if a link changed anywhere since the last check."""
        version = links_version()
        if version != self._version:
            self._entries.clear()
            self._version = version

    def start(self) -> None:
        """Once per process: watch LinkCacheVersion, and load the most visited links (SHORTENER_CACHE_PRELOAD).

        Without the preload, each process's first visit of every code waits for the database.
        """
        # Per process id: a worker forked after its parent started has none of its threads.
        if self._started_pid == os.getpid():
            return
        self._started_pid = os.getpid()
        threading.Thread(target=self._watch_version, name="shortener-links-version", daemon=True).start()
        limit = min(settings.SHORTENER_CACHE_PRELOAD, settings.SHORTENER_CACHE_MAX_ENTRIES)
        if limit:
            threading.Thread(target=self._preload_and_close, args=(limit,), daemon=True).start()

    def _watch_version(self) -> None:
        while True:
            time.sleep(VERSION_CHECK_SECONDS)
            try:
                self.check_version()
            except Exception:
                logger.exception("Could not read the short links' version; trying again.")
                connection.close()

    def _preload_and_close(self, limit: int) -> None:
        try:
            self.preload(limit)
        except Exception:
            logger.exception("Could not preload the short links; they will be looked up one by one.")
        finally:
            connection.close()

    def preload(self, limit: int) -> int:
        """Cache the `limit` most visited live links; return how many were loaded."""
        generation = self._generation
        # Read first: the links loaded below are at least as fresh as this version.
        version = links_version()
        expires = time.monotonic() + settings.SHORTENER_CACHE_SECONDS
        rows = (
            ShortLink.objects.filter(deleted_at__isnull=True)
            .order_by("-counter", "-created_at")
            .values_list("code", "pk", "url")[:limit]
        )
        loaded = {code: (CachedLink(pk=pk, url=url, is_deleted=False), expires) for code, pk, url in rows}
        if generation != self._generation:
            return 0  # a link changed meanwhile; what was read may be stale
        if self._version is None:
            self._version = version
        for code, entry in loaded.items():
            self._entries.setdefault(code, entry)
        return len(loaded)


local_links = LocalLinks()


def _cache_key(code: str) -> str:
    return f"shortener:code:{code}"


def _fetch(code: str) -> CachedLink | None:
    # Plain SQL: on a cold cache this runs for every redirect, and the ORM's query
    # building would cost more than the database's answer.
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, url, deleted_at IS NOT NULL FROM {LINK_TABLE} WHERE code = %s", [code])
        row = cursor.fetchone()
    return None if row is None else CachedLink(pk=row[0], url=row[1], is_deleted=bool(row[2]))


def link_by_code(code: str) -> ShortLink | None:
    """The link behind `code`, deleted or not, fresh from the database (its counter included)."""
    # Raw SQL: building this query through the ORM cost twice as much as everything else
    # in GET /stats/<code> together (about 300 us of CPU against 100).
    fields = ", ".join(field.column for field in ShortLink._meta.concrete_fields)
    return next(iter(ShortLink.objects.raw(f"SELECT {fields} FROM {LINK_TABLE} WHERE code = %s", [code])), None)


def link_resolve(code: str) -> CachedLink | None:
    """The link behind `code` (deleted ones included), from this process, the cache or the database."""
    local_links.start()
    found = local_links.get(code)
    if found is not None:
        return found
    # With Redis, another process's lookup saves this one the query (without it, a no-op).
    key = _cache_key(code)
    found = cache.get(key)
    if found is None:
        found = _fetch(code)
        if found is None:
            # Unknown codes are not cached: a code created in another process must work at once.
            return None
        cache.set(key, found, timeout=settings.SHORTENER_CACHE_SECONDS)
    local_links.put(code, found)
    return found


def forget_cached_link(sender: type[Model], instance: ShortLink, created: bool = False, **kwargs: object) -> None:
    """Signal receiver: any change or removal of a link (admin included) drops the cached lookups."""
    cache.delete(_cache_key(instance.code))
    if created:
        return  # a new code was never cached
    # The code itself may have changed, so everything goes; changes are rare next to visits.
    local_links.clear()
    bump_links_version()


@lru_cache(maxsize=4)
def _blocked_hosts(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def clean_url(raw: str) -> str:
    url = raw.strip()
    if not url:
        raise Failure(messages.URL_MISSING)
    if len(url) > URL_MAX_LENGTH:
        raise Failure(messages.URL_TOO_LONG.format(limit=URL_MAX_LENGTH))
    try:
        _url_validator(url)
    except ValidationError:
        raise Failure(messages.URL_INVALID.format(url=url)) from None
    host = (urlsplit(url).hostname or "").lower()
    if settings.SHORTENER_BLOCKED_HOSTS and _blocked_hosts(settings.SHORTENER_BLOCKED_HOSTS).search(host):
        raise Failure(messages.HOST_BLOCKED.format(host=host), 403)
    return url


def clean_custom(raw: str, *, url: str) -> str:
    custom = raw.strip()
    if not custom:
        return ""
    if not CUSTOM_CODE_RE.fullmatch(custom):
        raise Failure(messages.CUSTOM_INVALID.format(limit=CODE_MAX_LENGTH))
    if custom.lower() in RESERVED_CODES:
        words = ", ".join(f'"{word}"' for word in sorted(RESERVED_CODES))
        raise Failure(messages.CUSTOM_RESERVED.format(words=words, url=url))
    return custom


def _existing_generated(owner_id: int | None, url: str) -> ShortLink | None:
    return ShortLink.objects.filter(owner_id=owner_id, url_digest=ShortLink.digest(url), **DEDUPLICATED_LINKS).first()


def _insert(**fields: object) -> ShortLink:
    # Its own savepoint, so a constraint violation leaves the caller's transaction usable.
    with transaction.atomic():
        return ShortLink.objects.create(**fields)


def link_create(
    *,
    owner_id: int | None,
    url: str,
    custom: str = "",
    expires_at: datetime | None = None,
    max_visits: int | None = None,
) -> ShortLink:
    """Shorten `url` for the user (None: anonymously); every argument must already be clean.

    Without custom text or lifetime, the user's existing code for the same URL is returned;
    the conditional unique constraint makes that hold when two requests race. A link
    with a lifetime is always a new one.
    """
    lifetime = {"expires_at": expires_at, "max_visits": max_visits}
    if custom:
        try:
            return _insert(code=custom, url=url, owner_id=owner_id, is_custom=True, **lifetime)
        except IntegrityError:
            existing = ShortLink.objects.filter(code=custom).first()
            if (
                existing
                and existing.owner_id == owner_id
                and existing.url == url
                and not existing.is_deleted
                and (existing.expires_at, existing.max_visits) == (expires_at, max_visits)
            ):
                return existing
            raise Failure(messages.CUSTOM_TAKEN.format(custom=custom, url=url), 409) from None

    deduplicated = expires_at is None and max_visits is None
    existing = _existing_generated(owner_id, url) if deduplicated else None
    if existing:
        return existing
    for _attempt in range(GENERATE_ATTEMPTS):
        code = ShortLink.generate_code()
        if code.lower() in RESERVED_CODES:
            continue
        try:
            return _insert(code=code, url=url, owner_id=owner_id, **lifetime)
        except IntegrityError:
            # Either another request of this user won the race for this URL, or the code is taken.
            existing = _existing_generated(owner_id, url) if deduplicated else None
            if existing:
                return existing
    raise Failure(messages.CODE_EXHAUSTED, 503)


def link_delete(*, link: ShortLink) -> None:
    """Soft-delete: the link stops resolving but its code stays taken."""
    if link.deleted_at is None:
        link.deleted_at = timezone.now()
        link.save(update_fields=["deleted_at"])


def links_by_popularity(queryset: QuerySet[ShortLink]) -> QuerySet[ShortLink]:
    return queryset.filter(deleted_at__isnull=True).order_by("-counter", "-created_at", "-pk")


def links_live() -> QuerySet[ShortLink]:
    """Links that still redirect: not deleted, not expired, not used up."""
    return ShortLink.objects.filter(
        Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()),
        Q(max_visits__isnull=True) | Q(counter__lt=F("max_visits")),
        deleted_at__isnull=True,
    )


def links_free_codes() -> int:
    """Generated codes still free: every code of the configured length, less the links that hold one.

    Lstu's `empty` counts codes it has generated ahead and not given out; codes are made on
    demand here, so the nearest figure is how many more a generated code can still be.
    """
    possible = len(CODE_ALPHABET) ** settings.SHORTENER_CODE_LENGTH
    return max(0, possible - ShortLink.objects.filter(is_custom=False).count())
