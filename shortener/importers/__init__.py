"""Imports from the shorteners people leave (issue 46, item 6): Shlink, Bitly, YOURLS and Kutt.

`parse(text)` recognises a file of one of those formats by its content and gives its lines as
transfer.ImportItem, each with its code, target, creation date, the visits the other shortener
counted and its tags where the format has them; None means "not one of these" and the file goes
on to the shortener's own formats (services/transfer.py). `import_one()` imports a line: its code
is kept, and a code already taken here is reported, never overwritten. The visits come in as
`imported_visits`, shown apart from `counter` (the unique visits counted here): the other
shortener counted every click, so adding them up would mix two different measures.

Formats, from each product's documented export (the sample files are in tests/fixtures/shortener_imports/):
- shlink.py  Shlink's CSV export (the web client's "Export"): createdAt, domain, shortCode,
             shortUrl, longUrl, title, tags ("|"-separated), visits.
- bitly.py   Bitly's CSV export of links: its Bitlink fields (id or link, long_url, title,
             created_at, tags, clicks).
- yourls.py  YOURLS's `yourls_url` table (keyword, url, title, timestamp, ip, clicks), as CSV with
             a header row or as the SQL INSERTs of a dump (mysqldump, phpMyAdmin).
- kutt.py    Kutt's API JSON (GET /api/v2/links: {data: [{address, target, visit_count,
             created_at, …}], total, …}, or a list of those links). Kutt has no tags.
"""

import csv
import io
import re
from datetime import UTC, datetime

from django.utils import timezone

from shortener import messages
from shortener.errors import Failure
from shortener.models import DEDUPLICATED_LINKS, ShortLink
from shortener.services.editing import set_tags
from shortener.services.links import clean_custom, clean_url, link_create

# What a tag may hold here (services/editing.py): other characters become "-", as few shorteners
# restrict tags ("Summer sale" in Shlink); a tag is then cut to 32 characters, 10 tags at most.
TAG_UNSAFE = re.compile(r"[^a-z0-9._-]+")
TAG_MAX_LENGTH = 32
TAGS_MAX = 10


def parse(text: str) -> list | None:
    """The lines of a Shlink, Bitly, YOURLS or Kutt export, or None if `text` is none of them."""
    from shortener.importers import bitly, kutt, shlink, yourls

    stripped = text.lstrip()
    if stripped[:1] in "[{":
        return kutt.parse(stripped)
    if yourls.is_sql(text):
        return yourls.parse_sql(text)
    header, rows = _csv(text)
    if header is None:
        return None
    for module in (shlink, yourls, bitly):
        if set(header) >= module.HEADER or module.matches(header):
            return module.parse_rows(header, rows)
    return None


def _csv(text: str) -> tuple[list[str] | None, list[tuple[int, list[str]]]]:
    """The header (lower-cased names) and the numbered rows of a CSV, or (None, []) if not one."""
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader, None)
        if not header:
            return None, []
        names = [name.strip().lower() for name in header]
        rows = [(reader.line_num, row) for row in reader if any(cell.strip() for cell in row)]
    except csv.Error:
        return None, []
    return names, rows


def cell(row: list[str], header: list[str], *names: str) -> str:
    for name in names:
        if name in header:
            index = header.index(name)
            return row[index].strip() if index < len(row) else ""
    return ""


def clean_tags(values: list[str]) -> str:
    tags: list[str] = []
    for value in values:
        tag = TAG_UNSAFE.sub("-", value.strip().lower()).strip("-")[:TAG_MAX_LENGTH]
        if tag and tag not in tags:
            tags.append(tag)
    return " ".join(tags[:TAGS_MAX])


def parse_date(value: str | None, *, naive_is_utc: bool = True) -> datetime | None:
    """An ISO 8601 date and time (YOURLS: "YYYY-MM-DD HH:MM:SS", taken as UTC); empty: None.

    Raises ValueError if it is not one, or is in the future.
    """
    if value is None or not str(value).strip():
        return None
    text = str(value).strip()
    # Bitly writes "+0000"; fromisoformat reads "+00:00" on every Python 3.11+.
    text = re.sub(r"([+-]\d\d)(\d\d)$", r"\1:\2", text)
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if moment > timezone.now():
        raise ValueError(value)
    return moment


def parse_visits(value: object) -> int:
    if value is None or value == "":
        return 0
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, int):
        number = value
    else:
        text = str(value).strip().replace(",", "")
        if not text.isdigit():
            raise ValueError(value)
        number = int(text)
    if number < 0 or number >= 2**63:
        raise ValueError(value)
    return number


def code_from_short(value: str) -> str:
    """The code of a short URL ("https://bit.ly/abc", "bit.ly/abc" or "abc")."""
    return value.strip().rstrip("/").rsplit("/", 1)[-1]


def item(line: int, *, url: str, code: str, created: object, visits: object, tags: list[str], source: str):
    """A transfer.ImportItem of a foreign line, or one carrying why the line is refused."""
    from shortener.services.transfer import ImportItem

    entry = ImportItem(line, url=url or "", custom=code or "", source=source, tags=clean_tags(tags))
    try:
        entry.created_at = parse_date(created if created is None or isinstance(created, str) else str(created))
    except ValueError:
        entry.error = messages.IMPORT_DATE_INVALID.format(value=str(created)[:64])
        return entry
    try:
        entry.imported_visits = parse_visits(visits)
    except ValueError:
        entry.error = messages.IMPORT_VISITS_INVALID.format(value=str(visits)[:64])
    return entry


def import_one(user_id: int, entry) -> tuple[str, str, str]:
    """Import one foreign line for the user: (status, code, message); status created, existing or refused.

    Its code is kept. A code already taken here is refused and reported; the link behind it is
    never changed (a link of the same user to the same URL counts as already there).
    """
    try:
        url = clean_url(entry.url)
        code = clean_custom(entry.custom, url=url) if entry.custom else ""
        if code:
            existing = ShortLink.objects.filter(code=code).first()
            if existing is not None:
                if existing.owner_id == user_id and existing.url == url and not existing.is_deleted:
                    return "existing", code, ""
                return "refused", "", messages.IMPORT_CODE_CONFLICT.format(code=code)
        else:
            existing = ShortLink.objects.filter(
                owner_id=user_id, url_digest=ShortLink.digest(url), **DEDUPLICATED_LINKS
            ).first()
            if existing is not None:
                return "existing", existing.code, ""
        link = link_create(
            owner_id=user_id,
            url=url,
            custom=code,
            created_at=entry.created_at,
            imported_visits=entry.imported_visits,
        )
        if entry.tags:
            from shortener.services.editing import clean_tags as checked_tags

            set_tags(link, checked_tags(entry.tags))
    except Failure as failure:
        if failure.status == 409:  # taken between the check and the insert
            return "refused", "", messages.IMPORT_CODE_CONFLICT.format(code=entry.custom)
        return "refused", "", failure.msg
    return "created", link.code, ""
