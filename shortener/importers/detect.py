"""Which foreign export a file is, told from its content, and its lines (common.ForeignLink)."""

from shortener.importers import bitly, kutt, shlink, yourls
from shortener.importers.common import ForeignLink, read_csv


def parse(text: str) -> list[ForeignLink] | None:
    """The lines of a Shlink, Bitly, YOURLS or Kutt export, or None if `text` is none of them."""
    stripped = text.lstrip()
    if stripped[:1] in "[{":
        return kutt.parse(stripped)
    if yourls.is_sql(text):
        return yourls.parse_sql(text)
    header, rows = read_csv(text)
    if header is None:
        return None
    for module in (shlink, yourls, bitly):
        if set(header) >= module.HEADER or module.matches(header):
            return module.parse_rows(header, rows)
    return None
