"""Creating, finding and deleting short links. The redirect's cached lookup is shortener/fastpath/links.py."""

import json
import re
from datetime import datetime
from functools import lru_cache
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import IntegrityError, connection, transaction
from django.db.models import BooleanField, F, Q, QuerySet, Sum
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce
from django.utils import timezone

from shortener import messages
from shortener.errors import Failure
from shortener.models import (
    CODE_ALPHABET,
    CODE_MAX_LENGTH,
    DEDUPLICATED_LINKS,
    URL_MAX_LENGTH,
    LinkTag,
    LiveLinkCount,
    ShortLink,
)
from shortener.moderation.blocklist import blocklist
from shortener.services import ranking
from shortener.services.tallies import generated_codes

# Route names and words users could mistake for pages; compared case-insensitively.
RESERVED_CODES = frozenset(
    {"a", "d", "stats", "login", "logout", "logged-out", "api", "admin", "static", "media", "cookie", "fullstats"}
    | {"tokens", "export", "import", "domains"}
    | {"moderation", "report"}
)
# What a code may look like, generated or custom: the URL converter and the fast path match it too.
CODE_RE = re.compile(rf"[A-Za-z0-9_-]{{1,{CODE_MAX_LENGTH}}}")
GENERATE_ATTEMPTS = 10

LINK_TABLE = ShortLink._meta.db_table

_url_validator = URLValidator(schemes=["http", "https"])


TAG_TABLE = LinkTag._meta.db_table
# A link's tag names as one JSON array, in the link's row (PostgreSQL: NULL for none; SQLite: "[]").
TAG_NAMES_SQL = {
    "postgresql": f"(SELECT json_agg(name) FROM {TAG_TABLE} WHERE link_id = {LINK_TABLE}.id)",
    "sqlite": f"(SELECT json_group_array(name) FROM {TAG_TABLE} WHERE link_id = {LINK_TABLE}.id)",
}


def link_by_code(code: str, domain: str = "", *, with_tags: bool = False) -> ShortLink | None:
    """The link behind `code` on `domain` ("": the default), deleted or not, fresh from the database.

    `with_tags`: its tags' names come in the same query, as `tag_names` (unsorted).
    """
    # Raw SQL: building this query through the ORM cost twice as much as everything else
    # in GET /stats/<code> together (about 300 us of CPU against 100).
    fields = ", ".join(field.column for field in ShortLink._meta.concrete_fields)
    if with_tags:
        fields += f", {TAG_NAMES_SQL[connection.vendor]} AS tag_names_json"
    query = f"SELECT {fields} FROM {LINK_TABLE} WHERE domain = %s AND code = %s"
    link = next(iter(ShortLink.objects.raw(query, [domain, code])), None)
    if link is not None and with_tags:
        names = link.tag_names_json
        link.tag_names = [] if names is None else json.loads(names) if isinstance(names, str) else names
    return link


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
    if blocklist.blocked_domain(host):
        raise Failure(messages.HOST_BLOCKLISTED.format(host=host), 403)
    return url


def host_blocked(host: str) -> bool:
    """Whether links to `host` are refused now (the periodic check asks it of older links)."""
    host = host.lower()
    pattern = settings.SHORTENER_BLOCKED_HOSTS
    return bool((pattern and _blocked_hosts(pattern).search(host)) or blocklist.blocked_domain(host))


def clean_custom(raw: str, *, url: str) -> str:
    custom = raw.strip()
    if not custom:
        return ""
    if not CODE_RE.fullmatch(custom):
        raise Failure(messages.CUSTOM_INVALID.format(limit=CODE_MAX_LENGTH))
    if custom.lower() in RESERVED_CODES:
        words = ", ".join(f'"{word}"' for word in sorted(RESERVED_CODES))
        raise Failure(messages.CUSTOM_RESERVED.format(words=words, url=url))
    return custom


def _existing_generated(owner_id: int | None, url: str, domain: str) -> ShortLink | None:
    digest = ShortLink.digest(url)
    return ShortLink.objects.filter(owner_id=owner_id, domain=domain, url_digest=digest, **DEDUPLICATED_LINKS).first()


def _insert(**fields: object) -> ShortLink:
    # Its own savepoint, so a constraint violation leaves the caller's transaction usable.
    with transaction.atomic():
        return ShortLink.objects.create(**fields)


def link_create(
    *,
    owner_id: int | None,
    url: str,
    domain: str = "",
    custom: str = "",
    expires_at: datetime | None = None,
    max_visits: int | None = None,
    password_hash: str = "",
    created_at: datetime | None = None,
    imported_visits: int = 0,
    options: dict[str, object] | None = None,
) -> ShortLink:
    """Shorten `url` for the user (None: anonymously) on `domain`; every argument must already be clean.

    `options`: the link's rules, forwarding, redirect status and preview (services/options.py).
    The user's existing link is only handed back if they already hold; otherwise 409.

    Without custom text or lifetime, the user's existing code for the same URL is returned;
    the conditional unique constraint makes that hold when two requests race. A link
    with a lifetime is always a new one. `created_at` and `imported_visits`: a link imported
    from another shortener (shortener/importers/) keeps its date and the visits counted there.
    """
    options = options or {}
    lifetime = {"expires_at": expires_at, "max_visits": max_visits, "password_hash": password_hash, **options}
    if created_at is not None:
        lifetime["created_at"] = created_at
    if imported_visits:
        lifetime["imported_visits"] = imported_visits
    if custom:
        try:
            return _insert(domain=domain, code=custom, url=url, owner_id=owner_id, is_custom=True, **lifetime)
        except IntegrityError:
            existing = ShortLink.objects.filter(domain=domain, code=custom).first()
            if (
                existing
                and existing.owner_id == owner_id
                and existing.url == url
                and not existing.is_deleted
                and (existing.expires_at, existing.max_visits) == (expires_at, max_visits)
                and not existing.password_hash
                and not password_hash
                and not _options_differ(existing, options)
            ):
                return existing
            raise Failure(messages.CUSTOM_TAKEN.format(custom=custom, url=url), 409) from None

    # A protected link is its own too: another request for the URL must not get it back.
    deduplicated = expires_at is None and max_visits is None and not password_hash
    existing = _existing_generated(owner_id, url, domain) if deduplicated else None
    if existing:
        return _same_options(existing, options)
    for _attempt in range(GENERATE_ATTEMPTS):
        code = ShortLink.generate_code()
        if code.lower() in RESERVED_CODES:
            continue
        try:
            return _insert(domain=domain, code=code, url=url, owner_id=owner_id, **lifetime)
        except IntegrityError:
            # Either another request of this user won the race for this URL, or the code is taken
            # on this domain (the (domain, code) constraint): then another code is drawn.
            existing = _existing_generated(owner_id, url, domain) if deduplicated else None
            if existing:
                return _same_options(existing, options)
    raise Failure(messages.CODE_EXHAUSTED, 503)


def _options_differ(link: ShortLink, options: dict[str, object]) -> bool:
    return any(getattr(link, field) != value for field, value in options.items())


def _same_options(existing: ShortLink, options: dict[str, object]) -> ShortLink:
    """The user's link to the URL, if asking again with other rules or settings would not change it."""
    if _options_differ(existing, options):
        raise Failure(messages.LINK_OPTIONS_DIFFER.format(short=existing.code), 409)
    return existing


def link_delete(*, link: ShortLink) -> None:
    """Soft-delete: the link stops resolving but its code stays taken."""
    if link.deleted_at is None:
        link.deleted_at = timezone.now()
        link.save(update_fields=["deleted_at"])


# Most visited first; the pk breaks ties, so the order is total and a page is the same however it is found.
POPULARITY = ranking.POPULARITY


def links_by_popularity(queryset: QuerySet[ShortLink]) -> QuerySet[ShortLink]:
    return queryset.filter(deleted_at__isnull=True).order_by("-counter", "-created_at", "-pk")


def live_links_total() -> int:
    """How many links are not deleted: on PostgreSQL the count a trigger keeps (no scan), elsewhere a count."""
    if connection.vendor == "postgresql":
        return LiveLinkCount.objects.aggregate(total=Coalesce(Sum("live"), 0))["total"]
    return ShortLink.objects.filter(deleted_at__isnull=True).count()


def links_page(
    queryset: QuerySet[ShortLink], *, total: int, page: int, size: int, scope: int | None = None
) -> list[ShortLink]:
    """Page `page` (1-based) of the live links of `queryset`, most visited first.

    The same rows as `links_by_popularity(queryset)[offset:offset + size]`, without reading
    `offset` rows: the page is a seek in the ranking index from the key (counter, created_at,
    id) of its first row. That key comes from the ranking's buckets when they are kept
    (services/ranking.py: `scope` is LinkRankBucket.ALL for every link, else the owner's id,
    and `queryset` must be that scope's links), otherwise from an index-only scan started at
    the nearer end of the ranking index (so the last page costs what the first does, and the
    middle page half a walk of that index's entries). `total` is the number of live links in
    `queryset`.
    """
    offset = (page - 1) * size
    if offset >= total:
        return []
    ranked = links_by_popularity(queryset)
    if offset == 0:
        return list(ranked[:size])
    from_end = total - 1 - offset
    if scope is not None and ranking.buckets_kept():
        key = ranking.key_at(ranked, scope=scope, offset=offset, total=total)
    else:
        if offset <= from_end:
            keys = ranked.values_list(*POPULARITY)[offset : offset + 1]
        else:
            reverse = queryset.filter(deleted_at__isnull=True).order_by(*POPULARITY)
            keys = reverse.values_list(*POPULARITY)[from_end : from_end + 1]
        key = next(iter(keys), None)
    if key is None:  # links deleted since `total` was read
        return list(ranked[offset : offset + size])
    return list(ranked.filter(_ranked_at_or_after(key))[:size])


def _ranked_at_or_after(key: tuple) -> RawSQL:
    # A row-value comparison, which PostgreSQL answers as one range of the (counter, created_at, id)
    # index; the same condition as three ORed ones, which it would not.
    counter, created_at, pk = key
    columns = ", ".join(f'"{LINK_TABLE}"."{column}"' for column in ("counter", "created_at", "id"))
    created = connection.ops.adapt_datetimefield_value(created_at)
    return RawSQL(f"({columns}) <= (%s, %s, %s)", (counter, created, pk), output_field=BooleanField())


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
    return max(0, possible - generated_codes())
