"""Changing a link after it was made: its target, lifetime, tags and password (owner, or admin mode)."""

import re

from django.contrib.auth.hashers import check_password, identify_hasher, make_password
from django.db import IntegrityError, transaction

from common.password_hashes import is_own_hash, own_algorithm
from shortener import messages
from shortener.errors import Failure
from shortener.models import LinkTag, ShortLink
from shortener.services.lifetime import clean_expires_at, clean_max_visits
from shortener.services.links import clean_url
from shortener.services.options import OPTION_FIELDS, clean_options

TAG_MAX_LENGTH = LinkTag._meta.get_field("name").max_length
TAGS_PER_LINK = 10
TAG_RE = re.compile(rf"[\w.-]{{1,{TAG_MAX_LENGTH}}}")
PASSWORD_MAX_LENGTH = 200
TRUE_WORDS = {"1", "on", "true", "yes"}
EDITABLE_FIELDS = ("url", "expires_at", "max_visits", "tags", "password", "remove_password", *OPTION_FIELDS)


def clean_tag(raw: str) -> str:
    tag = raw.strip().lower()
    if not TAG_RE.fullmatch(tag):
        raise Failure(messages.TAG_INVALID.format(limit=TAG_MAX_LENGTH))
    return tag


def clean_tags(raw: str) -> list[str]:
    """Tags as typed ("work, 2026 talks"): lower case, duplicates dropped, in their order."""
    words = [word for word in re.split(r"[,\s]+", raw.strip()) if word]
    tags = list(dict.fromkeys(word.lower() for word in words))
    if len(tags) > TAGS_PER_LINK or not all(TAG_RE.fullmatch(tag) for tag in tags):
        raise Failure(messages.TAGS_INVALID.format(count=TAGS_PER_LINK, limit=TAG_MAX_LENGTH))
    return tags


def clean_password(raw: str) -> str:
    if len(raw) > PASSWORD_MAX_LENGTH:
        raise Failure(messages.PASSWORD_TOO_LONG.format(limit=PASSWORD_MAX_LENGTH))
    return raw


def clean_password_hash(raw: str) -> str:
    """A password hash from an export: made as this server makes them (common.password_hashes), or refused."""
    raw = raw.strip()
    if not raw:
        return ""
    try:
        identify_hasher(raw)
    except ValueError:
        raise Failure(messages.PASSWORD_HASH_INVALID) from None
    if len(raw) > ShortLink._meta.get_field("password_hash").max_length:
        raise Failure(messages.PASSWORD_HASH_INVALID)
    if not is_own_hash(raw):
        raise Failure(messages.PASSWORD_HASH_FOREIGN.format(algorithm=own_algorithm()))
    return raw


def password_hash(raw: str) -> str:
    return make_password(raw) if raw else ""


def password_matches(link: ShortLink, raw: str) -> bool:
    return bool(link.password_hash) and check_password(raw, link.password_hash)


def set_tags(link: ShortLink, tags: list[str]) -> None:
    LinkTag.objects.filter(link=link).exclude(name__in=tags).delete()
    existing = set(LinkTag.objects.filter(link=link).values_list("name", flat=True))
    LinkTag.objects.bulk_create([LinkTag(link=link, name=tag) for tag in tags if tag not in existing])


def tags_of(link: ShortLink) -> list[str]:
    return sorted(tag.name for tag in link.tags.all())


def link_update(*, link: ShortLink, data: dict[str, str], short: str) -> ShortLink:
    """Apply the fields present in `data` (absent ones stay; an empty expiry or limit removes it).

    Validated as on creation (the same URL rules, blocked hosts included). Saved with one
    `save()`, whose signal drops the fast path's copies in this process and bumps the version
    every other process watches, so the change is followed at once.
    """
    if not any(field in data for field in EDITABLE_FIELDS):
        raise Failure(messages.NOTHING_TO_UPDATE)
    changed: list[str] = []
    if "url" in data:
        link.url = clean_url(data["url"])
        changed.append("url")
    if "expires_at" in data:
        link.expires_at = clean_expires_at(data["expires_at"])
        changed.append("expires_at")
    if "max_visits" in data:
        link.max_visits = clean_max_visits(data["max_visits"])
        changed.append("max_visits")
    options = clean_options(data)
    for field, value in options.items():
        setattr(link, field, value)
        changed.append(field)
    tags = clean_tags(data["tags"]) if "tags" in data else None
    if data.get("remove_password", "").strip().lower() in TRUE_WORDS:
        link.password_hash = ""
        changed.append("password_hash")
    elif data.get("password"):
        link.password_hash = password_hash(clean_password(data["password"]))
        changed.append("password_hash")
    try:
        with transaction.atomic():
            if changed:
                link.save(update_fields=changed)
            if tags is not None:
                set_tags(link, tags)
    except IntegrityError:
        # The owner/URL constraint: this owner already has a plain generated link to that URL.
        existing = ShortLink.objects.filter(owner_id=link.owner_id, url_digest=ShortLink.digest(link.url)).first()
        raise Failure(
            messages.URL_ALREADY_SHORTENED.format(short=existing.code if existing else link.url), 409
        ) from None
    return link
