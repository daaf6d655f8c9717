"""Creating, finding and deleting short links; the code → target cache the redirect relies on."""

import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import IntegrityError, transaction
from django.db.models import Model, QuerySet
from django.utils import timezone

from shortener import messages
from shortener.caching import cache
from shortener.errors import Failure
from shortener.models import CODE_MAX_LENGTH, URL_MAX_LENGTH, ShortLink

# Route names and words users could mistake for pages; compared case-insensitively.
RESERVED_CODES = frozenset(
    {"a", "d", "stats", "login", "logout", "logged-out", "api", "admin", "static", "media", "cookie", "fullstats"}
)
CUSTOM_CODE_RE = re.compile(rf"[A-Za-z0-9_-]{{1,{CODE_MAX_LENGTH}}}")
GENERATE_ATTEMPTS = 10

_url_validator = URLValidator(schemes=["http", "https"])


@dataclass(frozen=True)
class CachedLink:
    """What the redirect needs, small enough to keep in the cache."""

    pk: int
    url: str
    is_deleted: bool


def _cache_key(code: str) -> str:
    return f"shortener:code:{code}"


def link_resolve(code: str) -> CachedLink | None:
    """The link behind `code` (deleted ones included), from the cache when possible."""
    key = _cache_key(code)
    cached = cache.get(key)
    if cached is not None:
        return cached
    row = ShortLink.objects.filter(code=code).values_list("pk", "url", "deleted_at").first()
    if row is None:
        # Unknown codes are not cached: a code created in another process must work at once.
        return None
    found = CachedLink(pk=row[0], url=row[1], is_deleted=row[2] is not None)
    cache.set(key, found, timeout=settings.SHORTENER_CACHE_SECONDS)
    return found


def forget_cached_link(sender: type[Model], instance: ShortLink, **kwargs: object) -> None:
    """Signal receiver: any save or delete of a link (admin included) drops its cached lookup."""
    cache.delete(_cache_key(instance.code))


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


def _existing_generated(owner_id: int, url: str) -> ShortLink | None:
    return ShortLink.objects.filter(
        owner_id=owner_id, url_digest=ShortLink.digest(url), is_custom=False, deleted_at__isnull=True
    ).first()


def _insert(**fields: object) -> ShortLink:
    # Its own savepoint, so a constraint violation leaves the caller's transaction usable.
    with transaction.atomic():
        return ShortLink.objects.create(**fields)


def link_create(*, owner_id: int, url: str, custom: str = "") -> ShortLink:
    """Shorten `url` for the user; `url` and `custom` must already be clean.

    Without custom text, the user's existing code for the same URL is returned; the
    conditional unique constraint makes that hold when two requests race.
    """
    if custom:
        try:
            return _insert(code=custom, url=url, owner_id=owner_id, is_custom=True)
        except IntegrityError:
            existing = ShortLink.objects.filter(code=custom).first()
            if existing and existing.owner_id == owner_id and existing.url == url and not existing.is_deleted:
                return existing
            raise Failure(messages.CUSTOM_TAKEN.format(custom=custom, url=url), 409) from None

    existing = _existing_generated(owner_id, url)
    if existing:
        return existing
    for _attempt in range(GENERATE_ATTEMPTS):
        code = ShortLink.generate_code()
        if code.lower() in RESERVED_CODES:
            continue
        try:
            return _insert(code=code, url=url, owner_id=owner_id)
        except IntegrityError:
            # Either another request of this user won the race for this URL, or the code is taken.
            existing = _existing_generated(owner_id, url)
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
