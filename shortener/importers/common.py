"""What the format modules share: a line of a foreign export, and reading its cells, dates, counts and tags."""

import csv
import io
import re
from dataclasses import dataclass
from datetime import UTC, datetime

from django.utils import timezone

from shortener import messages

# What a tag may hold here (services/editing.py): other characters become "-", as few shorteners
# restrict tags ("Summer sale" in Shlink); a tag is then cut to 32 characters, 10 tags at most.
TAG_UNSAFE = re.compile(r"[^a-z0-9._-]+")
TAG_MAX_LENGTH = 32
TAGS_MAX = 10


@dataclass
class ForeignLink:
    """One line of another shortener's export, or why it cannot be imported (`error`)."""

    line: int
    source: str
    url: str = ""
    code: str = ""
    tags: str = ""
    created_at: datetime | None = None
    imported_visits: int = 0
    error: str = ""


def read_csv(text: str) -> tuple[list[str] | None, list[tuple[int, list[str]]]]:
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


def item(
    line: int, *, url: str, code: str, created: object, visits: object, tags: list[str], source: str
) -> ForeignLink:
    """A foreign line, or one carrying why it is refused (a bad date or visit count)."""
    entry = ForeignLink(line, source, url=url or "", code=code or "", tags=clean_tags(tags))
    try:
        entry.created_at = parse_date(None if created is None else str(created))
    except ValueError:
        entry.error = messages.IMPORT_DATE_INVALID.format(value=str(created)[:64])
        return entry
    try:
        entry.imported_visits = parse_visits(visits)
    except ValueError:
        entry.error = messages.IMPORT_VISITS_INVALID.format(value=str(visits)[:64])
    return entry
