"""Laravel's paginated envelope, which the reference product's API clients read.

`{"data": [...], "links": {first, last, prev, next}, "meta": {current_page, from,
last_page, path, per_page, to, total}, "status": 200}`. Like the reference, an
unusable `page` or `per_page` falls back to the default instead of failing, and a
page past the end is an empty page (with `from` and `to` null), not an error.
Links keep the request's other query parameters. Laravel's `meta.links` (the
page-number buttons of its HTML paginator) is left out: API clients page with
`links.next`/`links.prev` or `page`.

At a million reports (docs/scale.md):
- `meta.total` is exact when the list is narrowed by nothing but `project`: the projects keep
  their report counts (reports.models.Project.report_count). With `search` or `result` it is
  counted up to FIRST_COUNT_LIMIT (100); past that, on PostgreSQL, the query planner's estimate
  if it is over TRUSTED_ESTIMATE_FACTOR times EXACT_COUNT_LIMIT (10,000), else a count up to
  EXACT_COUNT_LIMIT (1,000) and the estimate past it (common.paging.list_total). An estimate
  sets `meta.total_is_estimate` (and `last_page` is derived from it). `links.next` is exact
  either way, and the last page found, by number or by cursor, makes the total exact.
- A page reads ids from the index that serves the sort, from the nearer end of the list when
  the total is exact (the last page is as cheap as the first), then only its own rows.
"""

import math
from urllib import parse

from django.db.models import QuerySet
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.paging import (
    EXACT_COUNT_LIMIT,
    FIRST_COUNT_LIMIT,
    TRUSTED_ESTIMATE_FACTOR,
    cursor_links,
    list_total,
    page_rows,
    resumed_rows,
)

PER_PAGE_CHOICES = (10, 25, 50, 100)
DEFAULT_PER_PAGE = 10


def _int_or_none(raw: str | None) -> int | None:
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


class LaravelPagination(BasePagination):
    page_query_param = "page"
    per_page_query_param = "per_page"

    def paginate_queryset(self, queryset: QuerySet, request: Request, view: APIView | None = None) -> list:
        self.request = request
        self._url_parts = None  # _page_url's parsed URL
        per_page = _int_or_none(request.query_params.get(self.per_page_query_param))
        self.per_page = per_page if per_page in PER_PAGE_CHOICES else DEFAULT_PER_PAGE
        page = _int_or_none(request.query_params.get(self.page_query_param))
        self.page = page if page is not None and page >= 1 else 1
        self.total, self.total_is_estimate = list_total(queryset, getattr(view, "kept_total", None))
        self.offset = (self.page - 1) * self.per_page
        self.has_next = self.offset + self.per_page < self.total
        self.keyset = getattr(view, "keyset", None)
        # links.next/prev carry the key to resume from: following them is a seek, however deep.
        resumed = resumed_rows(
            queryset, self.keyset, request.query_params, self.page, self.per_page + int(self.total_is_estimate)
        )
        if resumed is not None:
            self.items = resumed[: self.per_page]
            if self.total_is_estimate:
                self.has_next = len(resumed) > self.per_page
        elif not self.total_is_estimate:
            # Past the end, page_rows skips the query: a huge page would overflow the SQL OFFSET.
            self.items = page_rows(queryset, self.offset, self.per_page, self.total)
        else:
            rows = page_rows(queryset, self.offset, self.per_page, None, estimate=self.total)
            self.items, self.has_next = rows[: self.per_page], len(rows) > self.per_page
        if self.total_is_estimate and self.items and not self.has_next:  # the last page: now the total is known
            self.total, self.total_is_estimate = self.offset + len(self.items), False
        return self.items

    def get_paginated_response(self, data: list) -> Response:
        last_page = max(1, math.ceil(self.total / self.per_page))
        cursors = cursor_links(self.keyset, self.request.query_params, self.page, self.items)
        return Response(
            {
                "data": data,
                "links": {
                    "first": self._page_url(1),
                    "last": self._page_url(last_page),
                    "prev": self._page_url(self.page - 1, before=cursors["before"]) if self.page > 1 else None,
                    "next": self._page_url(self.page + 1, after=cursors["after"]) if self.has_next else None,
                },
                "meta": {
                    "current_page": self.page,
                    "from": self.offset + 1 if self.items else None,
                    "last_page": last_page,
                    "path": self.request.build_absolute_uri(self.request.path),
                    "per_page": self.per_page,
                    "to": self.offset + len(self.items) if self.items else None,
                    "total": self.total,
                    "total_is_estimate": self.total_is_estimate,
                },
                "status": 200,
            }
        )

    def _page_url(self, page: int, **cursor: str | None) -> str:
        """The request's URL for `page` (and a cursor), its parameters sorted, as DRF's
        replace_query_param() writes it: the URL is parsed once per list, not once per change."""
        if self._url_parts is None:
            scheme, netloc, path, query, fragment = parse.urlsplit(self.request.build_absolute_uri())
            kept = parse.parse_qs(query, keep_blank_values=True)
            for name in ("after", "before"):
                kept.pop(name, None)
            self._url_parts = (scheme, netloc, path, fragment, kept)
        scheme, netloc, path, fragment, kept = self._url_parts
        tokens = {name: [token] for name, token in cursor.items() if token}
        query = {**kept, **tokens, self.page_query_param: [str(page)]}
        return parse.urlunsplit((scheme, netloc, path, parse.urlencode(sorted(query.items()), doseq=True), fragment))

    def get_paginated_response_schema(self, schema: dict) -> dict:
        nullable_url = {"type": "string", "format": "uri", "nullable": True}
        nullable_int = {"type": "integer", "nullable": True}
        return {
            "type": "object",
            "required": ["data", "links", "meta", "status"],
            "properties": {
                "data": schema,
                "links": {
                    "type": "object",
                    "properties": {
                        "first": {"type": "string", "format": "uri"},
                        "last": {"type": "string", "format": "uri"},
                        "prev": nullable_url,
                        "next": nullable_url,
                    },
                },
                "meta": {
                    "type": "object",
                    "properties": {
                        "current_page": {"type": "integer"},
                        "from": nullable_int,
                        "last_page": {"type": "integer"},
                        "path": {"type": "string", "format": "uri"},
                        "per_page": {"type": "integer", "enum": list(PER_PAGE_CHOICES)},
                        "to": nullable_int,
                        "total": {
                            "type": "integer",
                            "description": "Exact unless total_is_estimate: with search or result, past "
                            f"{FIRST_COUNT_LIMIT:,} matches PostgreSQL answers its planner's estimate if that "
                            f"is over {TRUSTED_ESTIMATE_FACTOR * EXACT_COUNT_LIMIT:,}, else counts up to "
                            f"{EXACT_COUNT_LIMIT:,} and estimates past that (last_page follows the total). "
                            "links.next is always exact.",
                        },
                        "total_is_estimate": {
                            "type": "boolean",
                            "description": "Whether total (and last_page) is an estimate; never on the last page.",
                        },
                    },
                },
                "status": {"type": "integer", "example": 200},
            },
        }

    def get_schema_operation_parameters(self, view: APIView) -> list[dict]:
        return [
            {
                "name": self.page_query_param,
                "in": "query",
                "required": False,
                "description": "Page number (default 1; an unusable value means 1).",
                "schema": {"type": "string", "example": "2"},
            },
            {
                "name": self.per_page_query_param,
                "in": "query",
                "required": False,
                "description": "Results per page: 10, 25, 50 or 100 (default 10; any other value means 10).",
                # A string, not an integer enum: other values are not refused (the schema would promise a 4xx).
                "schema": {"type": "string", "example": "25"},
            },
            *(
                {
                    "name": name,
                    "in": "query",
                    "required": False,
                    "description": f"Set by links.{link} (opaque): the page is read from the row {side} it, "
                    "without walking the pages before. Ignored when made for another page or other parameters.",
                    "schema": {"type": "string"},
                }
                for name, link, side in (("after", "next", "after"), ("before", "prev", "before"))
            ),
        ]
