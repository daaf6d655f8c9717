"""YOURLS's `yourls_url` table, as CSV or as SQL INSERTs.

The table (YOURLS/YOURLS, includes/functions-install.php, yourls_create_sql_tables()) has the
columns keyword (the code), url, title, timestamp ("YYYY-MM-DD HH:MM:SS", the server's time,
taken as UTC here), ip and clicks. Its rows come as CSV with that header (phpMyAdmin's or
mysql's CSV export), or as the `INSERT INTO \\`yourls_url\\` (…) VALUES (…), (…);` statements of
a dump (mysqldump, phpMyAdmin's SQL export); the table prefix may be other than `yourls_`.
YOURLS has no tags.
"""

import re

from shortener import messages
from shortener.errors import Failure
from shortener.importers import common

SOURCE = "yourls"
HEADER = {"keyword", "url"}
COLUMNS = ["keyword", "url", "title", "timestamp", "ip", "clicks"]
INSERT = re.compile(r"INSERT\s+(?:IGNORE\s+)?INTO\s+[`\"]?(\w*url)[`\"]?\s*(\(([^)]*)\))?\s*VALUES\s*", re.I)
# One SQL value: a quoted string (with \\-escapes or doubled quotes), NULL, or a number.
VALUE = re.compile(r"\s*('(?:[^'\\]|\\.|'')*'|NULL|-?\d+(?:\.\d+)?)\s*", re.I | re.S)
ESCAPES = {"0": "\0", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a", "b": "\b"}


def matches(header: list[str]) -> bool:
    return False


def is_sql(text: str) -> bool:
    return INSERT.search(text) is not None


def parse_rows(header: list[str], rows: list[tuple[int, list[str]]]) -> list:
    cell = common.cell
    return [
        common.item(
            line,
            url=cell(row, header, "url"),
            code=cell(row, header, "keyword"),
            created=cell(row, header, "timestamp"),
            visits=cell(row, header, "clicks"),
            tags=[],
            source=SOURCE,
        )
        for line, row in rows
    ]


def _unquote(token: str) -> str | None:
    if token.upper() == "NULL":
        return None
    if not token.startswith("'"):
        return token
    body = token[1:-1].replace("''", "'")
    return re.sub(r"\\(.)", lambda match: ESCAPES.get(match.group(1), match.group(1)), body, flags=re.S)


def _tuples(text: str, start: int) -> tuple[list[list[str | None]], int]:
    """The `(…), (…)` value lists from `start` up to the statement's `;`."""
    rows: list[list[str | None]] = []
    position = start
    while True:
        while position < len(text) and text[position] in " \t\r\n":
            position += 1
        if position >= len(text) or text[position] != "(":
            raise Failure(messages.IMPORT_SQL_UNREADABLE)
        position += 1
        row: list[str | None] = []
        while True:
            match = VALUE.match(text, position)
            if match is None:
                raise Failure(messages.IMPORT_SQL_UNREADABLE)
            row.append(_unquote(match.group(1)))
            position = match.end()
            if text[position : position + 1] == ",":
                position += 1
                continue
            if text[position : position + 1] == ")":
                position += 1
                break
            raise Failure(messages.IMPORT_SQL_UNREADABLE)
        rows.append(row)
        while position < len(text) and text[position] in " \t\r\n":
            position += 1
        if text[position : position + 1] == ",":
            position += 1
            continue
        if position < len(text) and text[position] != ";":
            raise Failure(messages.IMPORT_SQL_UNREADABLE)  # something else after the values
        return rows, position


def parse_sql(text: str) -> list:
    """Every row of the INSERTs into a `…url` table, numbered in the order they come."""
    entries = []
    number = 0
    position = 0
    while (statement := INSERT.search(text, position)) is not None:
        names = [name.strip(' `"').lower() for name in statement.group(3).split(",")] if statement.group(3) else COLUMNS
        rows, position = _tuples(text, statement.end())
        for row in rows:
            number += 1
            values = dict(zip(names, row, strict=False))
            entries.append(
                common.item(
                    number,
                    url=values.get("url") or "",
                    code=values.get("keyword") or "",
                    created=values.get("timestamp"),
                    visits=values.get("clicks"),
                    tags=[],
                    source=SOURCE,
                )
            )
    if not entries:
        raise Failure(messages.IMPORT_SQL_UNREADABLE)
    return entries
