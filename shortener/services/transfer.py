"""Exporting one's links (JSON, CSV) and importing them back, or from a CSV or Lstu's exports.

Accepted imports, told apart by their content:
- our JSON export: `[{"url": …, "custom": "<code>" or "", …}, …]`, and likewise Lstu's
  `GET /stats?_format=json` items (`{short, url, counter, …}`, generated codes);
- Lstu's `lstu_export.json` (its `GET /cookie`): `["<code>", …]`, the codes the browser made. It
  holds no target, so a code is taken over only if it is here and belongs to no one (a link
  made anonymously, or moved from an Lstu database), as Lstu's import shows its stats;
- CSV with `url[,custom]` columns and an optional header row (our CSV export has them first).

Each line is shortened on its own (a bad line refuses only itself), and every refusal is
reported with its line and reason.
"""

import csv
import io
import itertools
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from dataclasses import field as dataclass_field
from datetime import datetime
from typing import Any

import orjson
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet
from django.utils import timezone
from django.utils.translation import gettext_noop

from common import parsers
from common.csv_safety import neutralise, restore
from shortener import messages
from shortener.domains import clean_domain
from shortener.errors import Failure
from shortener.importers import detect, saving
from shortener.models import LinkImport, LinkTag, ShortLink
from shortener.moderation.reports import link_disable
from shortener.services.editing import clean_password_hash, clean_tags, set_tags
from shortener.services.lifetime import clean_expires_at, clean_max_visits
from shortener.services.links import clean_custom, clean_url, link_create
from shortener.services.options import OPTION_FIELDS, clean_options, non_default

# Issue 46's link options, exported after the older columns (an older 9-column CSV still imports).
EXPORT_OPTIONS = OPTION_FIELDS
LEGACY_EXPORT_FIELDS = (
    "url",
    "custom",
    "short",
    "counter",
    "created_at",
    "expires_at",
    "max_visits",
    "tags",
    "password_hash",
)
# Then whether moderation disabled the link, the options, and the link's domain (issue 46).
EXPORT_FIELDS = (*LEGACY_EXPORT_FIELDS, "disabled", *EXPORT_OPTIONS, "domain")
# The import page writes its progress this often (lines), not at every line.
PROGRESS_EVERY = 50
PROGRESS_KEY_RE = re.compile(r"[A-Za-z0-9-]{8,64}")
CODE_IN_SHORT_RE = re.compile(r"([A-Za-z0-9_-]+)/?$")


@dataclass
class LineResult:
    line: int
    status: str  # created, existing, claimed or refused
    short_code: str = ""
    msg: str = ""
    domain: str = ""


@dataclass
class ImportItem:
    line: int
    url: str = ""
    custom: str = ""
    expires_at: str = ""
    max_visits: str = ""
    tags: str = ""
    password_hash: str = ""
    # Moderation: a link disabled where it was exported stays disabled here.
    disabled: bool = False
    # Rules, forwarding, redirect status and preview, as form text (services/options.py reads them).
    options: dict[str, str] = dataclass_field(default_factory=dict)
    domain: str = ""  # a host of SHORTENER_DOMAINS; empty: the default domain
    lstu_code: str = ""  # an entry of Lstu's lstu_export.json
    error: str = ""
    # A line of another shortener's export (shortener/importers/): its name, date and visits.
    source: str = ""
    created_at: datetime | None = None
    imported_visits: int = 0


# Rows fetched per round trip by the export's server-side cursor, and encoded per write.
EXPORT_CHUNK = 2000
EXPORT_COLUMNS = (
    "pk",
    "url",
    "is_custom",
    "code",
    "counter",
    "created_at",
    "expires_at",
    "max_visits",
    "password_hash",
    "disabled_at",
    *EXPORT_OPTIONS,
    "domain",
)


def links_for_export(user_id: int) -> QuerySet[ShortLink]:
    # Oldest first; (owner, created_at, id) is an index (shortener_link_export_idx), so the
    # rows come in order from it, without a sort.
    return ShortLink.objects.filter(owner_id=user_id, deleted_at__isnull=True).order_by("created_at", "pk")


def _link_chunks(user_id: int) -> Iterator[tuple[tuple[tuple, ...], dict[int, str]]]:
    """The user's live links as EXPORT_COLUMNS tuples, EXPORT_CHUNK at a time (never the whole
    list in memory), each chunk with its links' tags (one query per chunk)."""
    rows = links_for_export(user_id).values_list(*EXPORT_COLUMNS).iterator(chunk_size=EXPORT_CHUNK)
    for chunk in itertools.batched(rows, EXPORT_CHUNK):
        tags: dict[int, list[str]] = {}
        for link_id, name in (
            LinkTag.objects.filter(link_id__in=[row[0] for row in chunk])
            .order_by("name")
            .values_list("link_id", "name")
        ):
            tags.setdefault(link_id, []).append(name)
        yield chunk, tags


# Each chunk is converted by one comprehension and written by one call into the json or csv
# module's C loop: per-row Python calls (a generator's next(), DictWriter's per-row dict to
# list) were most of the CSV export's time (28,000 links/s at 10⁶; docs/scale.md).
# `short_prefixes` gives each domain's short URL less its code (the code is the last path segment
# and needs no quoting), so that building 10^6 short URLs costs a string concatenation each. A
# link's `domain` is exported empty for the default domain, so that it lands on the default
# domain of the instance it is imported into. The password
# is exported as its hash, never in clear: an import elsewhere protects the link the same way.


def export_json(user_id: int, short_prefixes: dict[str, str]) -> Iterator[bytes]:
    """The bytes of JsonResponse(list of the user's export rows, safe=False), written a chunk at a time."""
    encode = DjangoJSONEncoder().encode
    separator = b""
    yield b"["
    for chunk, tags in _link_chunks(user_id):
        rows = [
            {
                "url": url,
                "custom": code if custom else "",
                "short": short_prefixes[domain] + code,
                "counter": counter,
                "created_at": int(created.timestamp()),
                "expires_at": int(expires.timestamp()) if expires else None,
                "max_visits": limit,
                "tags": tags.get(pk, []),
                "password_hash": hashed,
                "disabled": disabled is not None,
                # Only what differs from Lstu's behaviour, as in the API's answers.
                **non_default(dict(zip(EXPORT_OPTIONS, options, strict=True))),
                "domain": domain,
            }
            for pk, url, custom, code, counter, created, expires, limit, hashed, disabled, *options, domain in chunk
        ]
        # One encoder call per chunk, less the list's brackets: the items and their ", ".
        yield separator + encode(rows)[1:-1].encode()
        separator = b", "
    yield b"]"


def export_csv(user_id: int, short_prefixes: dict[str, str]) -> Iterator[bytes]:
    """A header row then one row per link (the columns of EXPORT_FIELDS), written a chunk at a time.

    Its text cells are neutralised for spreadsheets (a code or tag may start with "-"); the short URL
    starts with the site's address, and the other cells are numbers.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EXPORT_FIELDS)
    for chunk, tags in _link_chunks(user_id):
        # The csv module writes None as "", as DictWriter did for the export's rows.
        writer.writerows(
            [
                (
                    neutralise(url),
                    neutralise(code) if custom else "",
                    short_prefixes[domain] + code,
                    counter,
                    int(created.timestamp()),
                    int(expires.timestamp()) if expires else None,
                    limit,
                    neutralise(" ".join(tags.get(pk, []))),
                    neutralise(hashed),
                    1 if disabled is not None else 0,
                    *_option_cells(options),
                    domain,
                )
                for pk, url, custom, code, counter, created, expires, limit, hashed, disabled, *options, domain in chunk
            ]
        )
        yield out.getvalue().encode()
        out.seek(0)
        out.truncate()
    yield out.getvalue().encode()


def _option_cells(options: list) -> list:
    """Rules as their JSON text, switches as 1/0, a status or "", preview texts neutralised."""
    rules, forward_query, forward_path, redirect_status, *preview = options
    return [
        orjson.dumps(rules).decode() if rules else "",
        int(forward_query),
        int(forward_path),
        redirect_status,
        *map(neutralise, preview),
    ]


def _json_options(entry: dict) -> dict[str, str]:
    return {name: _text(entry[name]) for name in EXPORT_OPTIONS if entry.get(name) is not None}


def parse_import(data: bytes) -> list[ImportItem]:
    """The lines of an uploaded file, or a Failure if it is none of the accepted formats."""
    if len(data) > settings.SHORTENER_IMPORT_MAX_BYTES:
        raise Failure(messages.IMPORT_TOO_LARGE.format(limit=settings.SHORTENER_IMPORT_MAX_BYTES), 413)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Failure(messages.IMPORT_NOT_UTF8) from None
    if "\x00" in text:
        raise Failure(messages.IMPORT_UNREADABLE)
    stripped = text.lstrip()
    if not stripped:
        raise Failure(messages.IMPORT_EMPTY)
    foreign = detect.parse(text)
    if foreign is not None:
        items = [
            ImportItem(
                entry.line,
                url=entry.url,
                custom=entry.code,
                tags=entry.tags,
                error=entry.error,
                source=entry.source,
                created_at=entry.created_at,
                imported_visits=entry.imported_visits,
            )
            for entry in foreign
        ]
    else:
        items = list(_json_items(stripped) if stripped[0] in "[{" else _csv_items(text))
    if not items:
        raise Failure(messages.IMPORT_EMPTY)
    if len(items) > settings.SHORTENER_IMPORT_MAX_LINES:
        raise Failure(messages.IMPORT_TOO_MANY_LINES.format(limit=settings.SHORTENER_IMPORT_MAX_LINES), 413)
    return items


def _json_items(text: str) -> Iterator[ImportItem]:
    # The shared parser: the standard library's recursed into a 10,000-deep file (a 500), kept
    # unpaired surrogates that no database can store, and read 1e400 as infinity.
    try:
        data = parsers.loads(text)
    except parsers.MalformedJSON:
        raise Failure(messages.IMPORT_UNREADABLE) from None
    if isinstance(data, dict) and isinstance(data.get("urls"), list):
        data = data["urls"]  # Lstu's admin /stats JSON
    if not isinstance(data, list):
        raise Failure(messages.IMPORT_UNREADABLE)
    for number, entry in enumerate(data, start=1):
        if isinstance(entry, str):
            match = CODE_IN_SHORT_RE.search(entry.strip())
            if match:
                yield ImportItem(number, lstu_code=match.group(1))
            else:
                yield ImportItem(number, error=messages.IMPORT_NOT_A_LINK)
        elif isinstance(entry, dict) and isinstance(entry.get("url"), str):
            yield ImportItem(
                number,
                url=entry["url"],
                custom=_text(entry.get("custom")),
                expires_at=_text(entry.get("expires_at")),
                max_visits=_text(entry.get("max_visits")),
                tags=" ".join(entry["tags"]) if _is_text_list(entry.get("tags")) else _text(entry.get("tags")),
                password_hash=_text(entry.get("password_hash")),
                disabled=entry.get("disabled") is True,
                options=_json_options(entry),
                domain=_text(entry.get("domain")),
            )
        else:
            yield ImportItem(number, error=messages.IMPORT_NOT_A_LINK)


def _is_text_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _text(value: object) -> str:
    """A JSON field as the text a form would have sent: strings and whole numbers as they are, null as absent.

    Anything else (1.5, true, a list) as its JSON text, which the field's check then refuses:
    a fraction or a list is not silently a link without a limit.
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return orjson.dumps(value).decode()


def _csv_items(text: str) -> Iterator[ImportItem]:
    reader = csv.reader(io.StringIO(text))
    try:
        for row in reader:
            if not row or not any(cell.strip() for cell in row):
                continue
            if reader.line_num == 1 and row[0].strip().lower() == "url":
                continue  # the header
            # Our own CSV export's further columns: expires_at, max_visits, tags, password_hash.
            # Its cells come back as they were before the export neutralised them; none of these
            # fields may start with a quote, so a CSV of another origin loses nothing by it.
            # (Exports made before the `disabled`, option and domain columns have only the first nine.)
            ours = len(row) in (len(LEGACY_EXPORT_FIELDS), len(EXPORT_FIELDS))
            complete = len(row) == len(EXPORT_FIELDS)
            options = row[len(LEGACY_EXPORT_FIELDS) + 1 : -1] if complete else []
            yield ImportItem(
                reader.line_num,
                url=restore(row[0]),
                custom=restore(row[1]) if len(row) > 1 else "",
                tags=restore(row[7]) if ours else "",
                password_hash=restore(row[8]) if ours else "",
                disabled=complete and row[len(LEGACY_EXPORT_FIELDS)].strip() == "1",
                options={name: restore(cell) for name, cell in zip(EXPORT_OPTIONS, options, strict=False) if cell},
                domain=row[-1] if complete else "",
            )
    except csv.Error:
        raise Failure(messages.IMPORT_UNREADABLE) from None


def _claim(user_id: int, code: str) -> LineResult | str:
    """Take over an ownerless live link by its code (an Lstu export entry); a str is the refusal."""
    try:
        with transaction.atomic():
            # lstu_export.json names codes only: those of the default domain, as Lstu has one.
            taken = ShortLink.objects.filter(domain="", code=code, owner__isnull=True, deleted_at__isnull=True).update(
                owner_id=user_id
            )
    except IntegrityError:  # the user already has a generated link to that URL
        return messages.IMPORT_CLAIM_DUPLICATE.format(code=code)
    if taken:
        return LineResult(0, "claimed", short_code=code)
    link = ShortLink.objects.filter(domain="", code=code).first()
    if link is None:
        return messages.IMPORT_CODE_UNKNOWN.format(code=code)
    if link.is_deleted:
        return messages.IMPORT_CODE_GONE.format(code=code)
    if link.owner_id == user_id:
        return LineResult(0, "existing", short_code=code)
    return messages.IMPORT_CODE_TAKEN.format(code=code)


def _import_one(user_id: int, item: ImportItem, started_at: Any) -> LineResult:
    if item.error:
        return LineResult(item.line, "refused", msg=item.error)
    if item.source:
        status, code, msg = saving.import_one(user_id, item)
        return LineResult(item.line, status, short_code=code, msg=msg)
    if item.lstu_code:
        outcome = _claim(user_id, item.lstu_code)
        if isinstance(outcome, str):
            return LineResult(item.line, "refused", msg=outcome)
        outcome.line = item.line
        return outcome
    try:
        url = clean_url(item.url)
        tags = clean_tags(item.tags)
        link = link_create(
            owner_id=user_id,
            url=url,
            domain=clean_domain(item.domain),
            custom=clean_custom(item.custom, url=url),
            expires_at=clean_expires_at(item.expires_at),
            max_visits=clean_max_visits(item.max_visits),
            password_hash=clean_password_hash(item.password_hash),
            options=non_default(clean_options(item.options)),
        )
        if tags:
            set_tags(link, tags)
    except Failure as failure:
        return LineResult(item.line, "refused", msg=failure.msg)
    if item.disabled and link.created_at >= started_at:
        # Stored in English; the moderation page shows it translated.
        link_disable(link=link, reason=gettext_noop("Disabled where it was exported from"))
    status = "created" if link.created_at >= started_at else "existing"
    return LineResult(item.line, status, short_code=link.code, domain=link.domain)


def import_start(*, user_id: int, key: str, total: int) -> LinkImport | None:
    """The progress row the page polls, if it sent a usable key."""
    if not PROGRESS_KEY_RE.fullmatch(key):
        return None
    progress, _ = LinkImport.objects.update_or_create(
        user_id=user_id, key=key, defaults={"total": total, "done": 0, "created": 0, "refused": 0, "finished_at": None}
    )
    return progress


def links_import(*, user_id: int, items: list[ImportItem], progress: LinkImport | None = None) -> list[LineResult]:
    """Shorten every item for the user; refusals are results, not errors."""
    started_at = timezone.now()
    results: list[LineResult] = []
    pending = {"done": 0, "created": 0, "refused": 0}
    for item in items:
        result = _import_one(user_id, item, started_at)
        results.append(result)
        pending["done"] += 1
        pending["created"] += result.status == "created"
        pending["refused"] += result.status == "refused"
        if progress is not None and pending["done"] >= PROGRESS_EVERY:
            _report_progress(progress, pending)
    if progress is not None:
        _report_progress(progress, pending, finished=True)
    return results


def _report_progress(progress: LinkImport, pending: dict[str, int], *, finished: bool = False) -> None:
    changes: dict[str, Any] = {field: F(field) + count for field, count in pending.items()}
    if finished:
        changes["finished_at"] = timezone.now()
    LinkImport.objects.filter(pk=progress.pk).update(**changes)
    for field in pending:
        pending[field] = 0


def import_progress(*, user_id: int, key: str) -> dict[str, Any] | None:
    progress = LinkImport.objects.filter(user_id=user_id, key=key).first()
    if progress is None:
        return None
    return {
        "total": progress.total,
        "done": progress.done,
        "created": progress.created,
        "refused": progress.refused,
        "finished": progress.finished_at is not None,
    }


def result_dict(result: LineResult, short: str) -> dict[str, Any]:
    data = asdict(result)
    del data["short_code"], data["domain"]
    if short:
        data["short"] = short
    if not data["msg"]:
        del data["msg"]
    return data
