"""An audit's pages and grouped issues as CSV or JSON, streamed: rows are read with `.iterator()` and
written as they come, so a 500-page audit never sits whole in memory (or in a response buffer).

- pages: one row per page (id, url, status, score, result, each category's score, error);
- issues: one row per failing check and page, grouped by check, worst first (the summary's order).

A CSV's text cells that a spreadsheet would run as formulas are neutralised (common/csv_safety.py).
"""

import csv
import json
from collections.abc import Iterable, Iterator

from django.http import StreamingHttpResponse
from django.utils.http import content_disposition_header

from common.csv_safety import neutralise
from reports.audits import summary
from reports.models import SCORE_CATEGORIES, Audit

PAGE_FIELDS = ["id", "url", "status", "score", "result", *(f"score_{c}" for c in SCORE_CATEGORIES), "error"]
ISSUE_FIELDS = ["category", "check", "importance", "pages_count", "page_id", "url"]


class _Echo:
    def write(self, value: str) -> str:
        return value


def page_rows(audit: Audit) -> Iterator[dict]:
    pages = audit.pages.order_by("pk").values_list(*(["pk", *PAGE_FIELDS[1:]]))
    for row in pages.iterator(chunk_size=200):
        values = dict(zip(PAGE_FIELDS, row, strict=True))
        values["result"] = values["result"] or None
        values["error"] = values["error"] or None
        yield values


def issue_rows(audit: Audit) -> Iterator[dict]:
    """Each failing (check, page), grouped by check in the summary's order (worst first)."""
    # One pass over the pages' results (at most REPORTS_AUDIT_MAX_PAGES), kept as ids and URLs only.
    grouped: dict[tuple[str, str], dict] = {}
    for category, key, importance, page_id, url in summary.failing_checks(audit):
        issue = grouped.setdefault((category, key), {"category": category, "check": key, "importance": importance})
        issue.setdefault("pages", []).append((page_id, url))
    issues = [{**issue, "pages_count": len(issue["pages"])} for issue in grouped.values()]
    for issue in sorted(issues, key=summary.issue_order):
        for page_id, url in issue["pages"]:
            yield {
                "category": issue["category"],
                "check": issue["check"],
                "importance": issue["importance"],
                "pages_count": issue["pages_count"],
                "page_id": page_id,
                "url": url,
            }


def _csv(fields: list[str], rows: Iterable[dict]) -> Iterator[str]:
    writer = csv.DictWriter(_Echo(), fieldnames=fields)
    yield writer.writeheader()
    for row in rows:
        yield writer.writerow({key: "" if value is None else neutralise(value) for key, value in row.items()})


def _json(audit: Audit, what: str, rows: Iterable[dict]) -> Iterator[str]:
    yield f'{{"audit": {audit.pk}, "{what}": ['
    for index, row in enumerate(rows):
        yield ("," if index else "") + json.dumps(row, ensure_ascii=False)
    yield "]}\n"


def response(audit: Audit, what: str, fmt: str) -> StreamingHttpResponse:
    """`what` is "pages" or "issues", `fmt` "csv" or "json"."""
    rows = page_rows(audit) if what == "pages" else issue_rows(audit)
    fields = PAGE_FIELDS if what == "pages" else ISSUE_FIELDS
    if fmt == "csv":
        body, content_type = _csv(fields, rows), "text/csv; charset=utf-8"
    else:
        body, content_type = _json(audit, what, rows), "application/json"
    streamed = StreamingHttpResponse((chunk.encode() for chunk in body), content_type=content_type)
    streamed["Content-Disposition"] = content_disposition_header(True, f"audit-{audit.pk}-{what}.{fmt}")
    return streamed
