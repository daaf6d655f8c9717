"""Bitly's CSV export of links.

Bitly exports a group's links as CSV (POST /v4/groups/{group_guid}/exports, export_type
"links_list", and the same "Export" of the web app) with its Bitlink fields as columns: id
("bit.ly/abc"), link ("https://bit.ly/abc"), long_url, title, created_at (ISO 8601), archived,
tags, custom_bitlinks, and with metrics the clicks. Documented fields: Bitly's API reference for
Bitlinks (dev.bitly.com), as listed at https://docs.coupler.io/sources/category/marketing/bitly/data-overview
and https://www.simworkflow.com/integration-operation/bitly-groups-group_guid-exports-post-04b.
Tags are one cell, separated by "|", ";" or ",".
"""

import re

from shortener.importers import common

SOURCE = "bitly"
HEADER = {"long_url"}
TAG_SEPARATORS = re.compile(r"[|;,]")


def matches(header: list[str]) -> bool:
    return "long url" in header and ("bitlink" in header or "link" in header)


def parse_rows(header: list[str], rows: list[tuple[int, list[str]]]) -> list:
    cell = common.cell
    return [
        common.item(
            line,
            url=cell(row, header, "long_url", "long url"),
            code=common.code_from_short(cell(row, header, "link", "id", "bitlink")),
            created=cell(row, header, "created_at", "created", "date created"),
            visits=cell(row, header, "clicks", "total_clicks", "engagements", "total engagements"),
            tags=[tag for tag in TAG_SEPARATORS.split(cell(row, header, "tags")) if tag.strip()],
            source=SOURCE,
        )
        for line, row in rows
    ]
