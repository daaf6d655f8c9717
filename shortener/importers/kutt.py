"""Kutt's API JSON: the answer of GET /api/v2/links, or a list of its links.

`{"limit": …, "skip": …, "total": …, "data": [link, …]}`, each link
`{id, address, target, description, visit_count, created_at, expire_in, domain, link, …}`: Kutt's
API documentation (thedevs-network/kutt, /api/v2 docs), as Shlink's importer reads it
(shlinkio/shlink-importer, src/Sources/Kutt/KuttImporter.php). Kutt links have no tags.
"""

from common import parsers
from shortener.importers import common

SOURCE = "kutt"


def _is_kutt_link(entry: object) -> bool:
    return isinstance(entry, dict) and "target" in entry and "address" in entry


def parse(text: str) -> list | None:
    """The links of a Kutt answer, or None if the JSON is not one (then it is read as C's own JSON)."""
    try:
        data = parsers.loads(text)
    except parsers.MalformedJSON:
        return None
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        data = data["data"]
    if not isinstance(data, list) or not data or not all(_is_kutt_link(entry) for entry in data):
        return None
    return [
        common.item(
            line,
            url=entry["target"] if isinstance(entry["target"], str) else "",
            code=entry["address"] if isinstance(entry["address"], str) else "",
            created=entry.get("created_at"),
            visits=entry.get("visit_count"),
            tags=[],
            source=SOURCE,
        )
        for line, entry in enumerate(data, start=1)
    ]
