"""Counting and paging lists that may hold millions of rows (docs/scale.md).

- `list_total`: a count kept elsewhere if the caller has one, else an exact count up to
  EXACT_COUNT_LIMIT, else (PostgreSQL) the planner's estimate, flagged as such.
- `page_rows` reads a page's ids from the index that serves the ORDER BY, from the nearer
  end when the total is exact, and fetches only those rows whole.
- `KeptCountPaginator` does the same for Django's Paginator (HTML lists and the admin).
- `streamed_json` encodes a document in chunks for a StreamingHttpResponse.
"""

import json
from collections.abc import Iterator

from django.core.paginator import EmptyPage, Page, PageNotAnInteger, Paginator
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connections, transaction
from django.db.models import QuerySet
from django.utils.functional import cached_property

# Up to this many rows a count is exact; it reads at most this many rows (a few ms, even for a search).
EXACT_COUNT_LIMIT = 1_000
# Beyond any list's length, and within a SQL OFFSET's range (a bigint): a page past it is empty.
MAX_OFFSET = 2**62


def planner_rows(queryset: QuerySet) -> int:
    """PostgreSQL's estimate of the rows `queryset` returns: its plan, not a scan."""
    plan = queryset.order_by().explain(format="json")
    plan = json.loads(plan) if isinstance(plan, str) else plan
    return int(plan[0]["Plan"]["Plan Rows"])


def list_total(queryset: QuerySet, kept_total: int | None = None) -> tuple[int, bool]:
    """(total, is_estimate): `kept_total` if known, an exact count up to EXACT_COUNT_LIMIT, else an estimate.

    SQLite, the embedded default for small instances, has no cheap estimate and counts exactly.
    """
    if kept_total is not None:
        return kept_total, False
    capped = queryset.order_by().values("pk")[: EXACT_COUNT_LIMIT + 1].count()
    if capped <= EXACT_COUNT_LIMIT:
        return capped, False
    if connections[queryset.db].vendor != "postgresql":
        return queryset.count(), False
    return max(planner_rows(queryset), EXACT_COUNT_LIMIT + 1), True


def page_rows(queryset: QuerySet, offset: int, limit: int, total: int | None) -> list:
    """Rows offset..offset+limit of the ordered `queryset` (one more when `total` is None), in one query.

    The database sorts and skips ids only (from the index that serves the ORDER BY), then
    fetches the page's rows whole: otherwise it would build every sorted row (a report's
    results among them) up to the page's end.

    With an exact `total`, a page in the list's second half is read backwards from its end,
    so no page walks more than half the index; the order is the same (ties included), as
    every sort ends in the unique id.

    Without one (more than EXACT_COUNT_LIMIT rows match), PostgreSQL is kept from bitmap
    scans: its planner cannot estimate a `LIKE '%…%'` and would gather every match through
    the trigram index (10⁶ for a common word) to sort them, where walking the index of the
    sort meets a page's worth of matches after a few hundred entries.
    """
    if offset > MAX_OFFSET:
        return []
    if total is None:
        rows = queryset.filter(pk__in=queryset.values("pk")[offset : offset + limit + 1])
        connection = connections[queryset.db]
        if connection.vendor != "postgresql":
            return list(rows)
        with transaction.atomic(using=queryset.db), connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_bitmapscan = off")
            return list(rows)
    if offset >= total:
        return []
    if offset + limit / 2 > total / 2:
        end = total - offset
        ids = queryset.reverse().values("pk")[max(0, end - limit) : end]
    else:
        ids = queryset.values("pk")[offset : offset + limit]
    return list(queryset.filter(pk__in=ids))


class KeptCountPaginator(Paginator):
    """Django's Paginator counting with list_total and paging with page_rows."""

    def __init__(
        self, object_list: QuerySet, per_page: int, *args: object, kept_total: int | None = None, **kwargs: object
    ) -> None:
        super().__init__(object_list, per_page, *args, **kwargs)
        self.kept_total = kept_total
        self.count_is_estimate = False

    @cached_property
    def count(self) -> int:
        total, self.count_is_estimate = list_total(self.object_list, self.kept_total)
        return total

    def validate_number(self, number: int | str) -> int:
        if not self.count or not self.count_is_estimate:
            return super().validate_number(number)
        # An estimated count may fall short: any page from 1 on may hold rows.
        try:
            number = int(number)
        except (TypeError, ValueError) as error:
            raise PageNotAnInteger(self.error_messages["invalid_page"]) from error
        if number < 1:
            raise EmptyPage(self.error_messages["min_page"])
        return number

    def page(self, number: int | str) -> Page:
        number = self.validate_number(number)
        offset = (number - 1) * self.per_page
        if not self.count_is_estimate:
            return self._get_page(page_rows(self.object_list, offset, self.per_page, self.count), number, self)
        rows = page_rows(self.object_list, offset, self.per_page, None)
        more, rows = len(rows) > self.per_page, rows[: self.per_page]
        if rows and not more:  # the last page: now the count is known
            self._set_count(offset + len(rows), estimate=False)
        elif more and offset + self.per_page >= self.count:  # the estimate fell short
            self._set_count(offset + self.per_page + 1, estimate=True)
        return self._get_page(rows, number, self)

    def _set_count(self, count: int, *, estimate: bool) -> None:
        self.__dict__["count"] = count
        self.__dict__.pop("num_pages", None)
        self.count_is_estimate = estimate


def streamed_json(data: object, *, chunk_size: int = 64 * 1024, **encoder_options: object) -> Iterator[bytes]:
    """`data` as JSON in chunks of about `chunk_size` bytes, for a StreamingHttpResponse.

    The encoder yields many tiny strings; they are gathered so that each write to the client
    carries a useful amount, while the whole document never exists as one string.
    """
    buffer: list[str] = []
    size = 0
    for piece in DjangoJSONEncoder(**encoder_options).iterencode(data):
        buffer.append(piece)
        size += len(piece)
        if size >= chunk_size:
            yield "".join(buffer).encode()
            buffer, size = [], 0
    if buffer:
        yield "".join(buffer).encode()
