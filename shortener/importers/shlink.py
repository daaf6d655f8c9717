"""Shlink's CSV export of short URLs.

The web client writes one row per short URL with the columns createdAt, domain, shortCode,
shortUrl, longUrl, title, tags (joined with "|") and visits (the total of its visits): see
shlinkio/shlink-web-component, src/short-urls/helpers/ExportShortUrlsBtn.tsx (exportShortUrls).
"""

from shortener.importers import common

SOURCE = "shlink"
HEADER = {"shortcode", "longurl"}


def matches(header: list[str]) -> bool:
    return False  # HEADER is enough


def parse_rows(header: list[str], rows: list[tuple[int, list[str]]]) -> list:
    cell = common.cell
    return [
        common.item(
            line,
            url=cell(row, header, "longurl"),
            code=cell(row, header, "shortcode"),
            created=cell(row, header, "createdat", "datecreated"),
            visits=cell(row, header, "visits", "visitscount"),
            tags=[tag for tag in cell(row, header, "tags").split("|") if tag.strip()],
            source=SOURCE,
        )
        for line, row in rows
    ]
