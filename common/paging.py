"""Counting and paging lists that may hold millions of rows (docs/scale.md).

- `list_total`: a count kept elsewhere if the caller has one, else an exact count up to
  FIRST_COUNT_LIMIT, then (PostgreSQL) the planner's estimate if it is large, else an exact
  count up to EXACT_COUNT_LIMIT and the estimate past it; an estimate is flagged as such.
- `page_rows` reads a page's ids from the index that serves the ORDER BY, from the nearer
  end when the total is exact, and fetches only those rows whole.
- `KeptCountPaginator` does the same for Django's Paginator (HTML lists and the admin).
- `streamed_json` encodes a document in chunks for a StreamingHttpResponse.
- `Keyset` and the cursors: the pager's next/previous links carry the key of the row they
  resume from, so that paging on from any page is a seek, not a walk.
"""

import base64
import binascii
import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime

from django.core.paginator import EmptyPage, Page, PageNotAnInteger, Paginator
from django.core.serializers.json import DjangoJSONEncoder
from django.db import OperationalError, connections, transaction
from django.db.models import F, QuerySet
from django.db.models.fields.tuple_lookups import Tuple, TupleGreaterThan, TupleLessThan
from django.utils.functional import cached_property

# Rows a page of a large table's admin changelist shows (Django's default is 100). The queries of
# a page take a few milliseconds at any size; rendering takes about 0.4 ms a row (measured at 10^6
# rows, bench/README.md "Life-sized data"), so 50 rows keep the page under 50 ms.
LARGE_TABLE_PER_PAGE = 50

# Up to this many rows a count is exact; it reads at most this many rows (a few ms, even for a search).
EXACT_COUNT_LIMIT = 1_000
# A first count stops here: most narrowed lists end before it (a rare search term, or none).
FIRST_COUNT_LIMIT = 100
# Past the first count, a PostgreSQL estimate over this many times EXACT_COUNT_LIMIT is answered
# without counting on: proving a thousand matches of a common search term reads some 8,000 rows,
# 5 ms at 10⁶ reports, and the planner's estimate of such a term is seldom off by ten times.
TRUSTED_ESTIMATE_FACTOR = 10
# How long a page of a list with a smaller estimate may walk the sort's index before the planner's
# own plan (the trigram index's bitmap, fetching every match) takes over (page_rows).
WALK_BUDGET_MS = 20
# Beyond any list's length, and within a SQL OFFSET's range (a bigint): a page past it is empty.
MAX_OFFSET = 2**62
# PostgreSQL's SQLSTATE for a statement cancelled by statement_timeout.
QUERY_CANCELED = "57014"


def planner_rows(queryset: QuerySet) -> int:
    """PostgreSQL's estimate of the rows `queryset` returns: its plan, not a scan.

    Without JIT: EXPLAIN starts the executor, and a plan costed past `jit_above_cost` (the
    whole match of a common search term at 10⁶ rows) loads the LLVM library into a backend
    that has not used it yet, 15 ms (more than the plan itself, 1 ms), for a query never run.
    """
    with transaction.atomic(using=queryset.db), connections[queryset.db].cursor() as cursor:
        cursor.execute("SET LOCAL jit = off")
        plan = queryset.order_by().explain(format="json")
    plan = json.loads(plan) if isinstance(plan, str) else plan
    return int(plan[0]["Plan"]["Plan Rows"])


def capped_count(queryset: QuerySet, limit: int) -> int:
    """`queryset`'s length if at most `limit`, else `limit` + 1: it reads no further."""
    return queryset.order_by().values("pk")[: limit + 1].count()


def list_total(queryset: QuerySet, kept_total: int | None = None) -> tuple[int, bool]:
    """(total, is_estimate): `kept_total` if known, else an exact count, else (PostgreSQL) an estimate.

    On PostgreSQL, exact up to FIRST_COUNT_LIMIT always; past it, the planner's estimate at once
    if that is over TRUSTED_ESTIMATE_FACTOR times EXACT_COUNT_LIMIT, else a count on up to
    EXACT_COUNT_LIMIT and the estimate only past that. SQLite, the embedded default for small
    instances, has no cheap estimate and counts exactly.
    """
    if kept_total is not None:
        return kept_total, False
    if connections[queryset.db].vendor != "postgresql":
        capped = capped_count(queryset, EXACT_COUNT_LIMIT)
        return (capped if capped <= EXACT_COUNT_LIMIT else queryset.count()), False
    first_limit = min(FIRST_COUNT_LIMIT, EXACT_COUNT_LIMIT)
    capped = capped_count(queryset, first_limit)
    if capped <= first_limit:
        return capped, False
    estimate = planner_rows(queryset)
    if estimate > TRUSTED_ESTIMATE_FACTOR * EXACT_COUNT_LIMIT:
        return estimate, True
    capped = capped_count(queryset, EXACT_COUNT_LIMIT)
    if capped <= EXACT_COUNT_LIMIT:
        return capped, False
    return max(estimate, EXACT_COUNT_LIMIT + 1), True


def page_rows(queryset: QuerySet, offset: int, limit: int, total: int | None, *, estimate: int | None = None) -> list:
    """Rows offset..offset+limit of the ordered `queryset` (one more when `total` is None), in one query.

    The database sorts and skips ids only (from the index that serves the ORDER BY), then
    fetches the page's rows whole: otherwise it would build every sorted row (a report's
    results among them) up to the page's end.

    With an exact `total`, a page in the list's second half is read backwards from its end,
    so no page walks more than half the index; the order is the same (ties included), as
    every sort ends in the unique id.

    Without one (the total is an estimate: a common term), PostgreSQL is kept from bitmap
    scans: its planner cannot estimate a `LIKE '%…%'` and would gather every match through
    the trigram index (10⁶ for a common word) to sort them, where walking the index of the
    sort meets a page's worth of matches after a few hundred entries. That walk is long when
    the matches are few or far from the list's start (`search=chapter-12`: 1,428 matches with
    ids from 120,000 on, 0.4-0.5 s walking 900,000 entries down from 1,010,000); so when the
    `estimate` is not past the trusted size (at most some 10,000 matches to fetch), the walk
    gets WALK_BUDGET_MS, then the planner's own plan reads the page (the same rows).
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
            if estimate is None or estimate > TRUSTED_ESTIMATE_FACTOR * EXACT_COUNT_LIMIT:
                return list(rows)
            cursor.execute(f"SET LOCAL statement_timeout = {int(WALK_BUDGET_MS)}")
            try:
                with transaction.atomic(using=queryset.db):
                    return list(rows)
            except OperationalError as error:
                if getattr(error.__cause__, "sqlstate", None) != QUERY_CANCELED:
                    raise
            cursor.execute("SET LOCAL enable_bitmapscan TO DEFAULT")
            cursor.execute("SET LOCAL statement_timeout TO DEFAULT")
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
        rows = page_rows(self.object_list, offset, self.per_page, None, estimate=self.count)
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


class Keyset:
    """A list's ORDER BY as a key, so that the pager's next/previous links can resume from a row.

    `terms` are the ORDER BY's terms (field names or expressions), the last one unique (the id);
    `key_of(row)` gives a row's values for them. A link to the next page carries the last row's
    key (a cursor): that page is then a seek in the index of the sort, `(terms) < (key)` as one
    row-value comparison (Django's own Tuple lookups, made for composite primary keys), which
    PostgreSQL and SQLite answer as one index range; no entry before
    it is read, however deep the page. Only for keys that are never NULL: a NULL would need an
    OR, which no index range serves.
    """

    def __init__(self, terms: tuple, key_of: Callable[[object], tuple], *, descending: bool) -> None:
        self.terms, self.key_of, self.descending = terms, key_of, descending

    def seek(self, queryset: QuerySet, key: tuple, *, forward: bool) -> QuerySet:
        """The rows of the ordered `queryset` after `key` (forward), or before it nearest first."""
        row = Tuple(*(F(term) if isinstance(term, str) else term for term in self.terms))
        past = TupleLessThan if self.descending == forward else TupleGreaterThan
        rows = queryset.filter(past(row, tuple(key)))
        return rows if forward else rows.reverse()


def _cursor_value(value: object) -> object:
    return {"t": value.isoformat()} if isinstance(value, datetime) else value


def _key_value(value: object) -> object:
    if isinstance(value, dict):
        return datetime.fromisoformat(value["t"])
    if isinstance(value, int | str):
        return value
    raise ValueError(value)


def encode_cursor(page: int, signature: str, key: tuple) -> str:
    """An opaque token for page `page` of the list `signature`, resuming after (or before) `key`."""
    data = json.dumps([page, signature, [_cursor_value(value) for value in key]], separators=(",", ":"))
    return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")


def decode_cursor(token: str | None, page: int, signature: str) -> tuple | None:
    """The key in `token` if it was made for this page of this list; else None (the caller walks)."""
    if not token or len(token) > 4096:
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        token_page, token_signature, key = data
        if token_page != page or token_signature != signature or not isinstance(key, list):
            return None
        return tuple(_key_value(value) for value in key)
    except (ValueError, TypeError, KeyError, binascii.Error):
        return None


def list_signature(params: Mapping[str, str], *, ignore: tuple[str, ...]) -> str:
    """A short digest of a list's parameters (filters, sort, page size): a cursor applies to its own list only."""
    wanted = sorted((name, value) for name, values in params.lists() for value in values if name not in ignore)
    return hashlib.sha256(json.dumps(wanted).encode()).hexdigest()[:12]


CURSOR_PARAMS = ("page", "after", "before")


def resumed_rows(
    queryset: QuerySet, keyset: Keyset | None, params: Mapping[str, str], page: int, limit: int
) -> list | None:
    """Page `page`'s rows (up to `limit`) sought from the request's `after`/`before` cursor, or None.

    None when there is no cursor, the sort has no Keyset, or the cursor was made for another
    page or list: the caller then reads the page by its number (page_rows).
    """
    if keyset is None or page < 1:
        return None
    signature = list_signature(params, ignore=CURSOR_PARAMS)
    for name, forward in (("after", True), ("before", False)):
        key = decode_cursor(params.get(name), page, signature)
        if key is not None and len(key) == len(keyset.terms):
            rows = list(keyset.seek(queryset, key, forward=forward)[:limit])
            return rows if forward else rows[::-1]
    return None


def cursor_links(keyset: Keyset | None, params: Mapping[str, str], page: int, rows: list) -> dict[str, str | None]:
    """The `after` token of the next page and the `before` token of the previous one (None: walk)."""
    if keyset is None or not rows:
        return {"after": None, "before": None}
    signature = list_signature(params, ignore=CURSOR_PARAMS)
    return {
        "after": encode_cursor(page + 1, signature, keyset.key_of(rows[-1])),
        # Page 1 is read from the start of the index anyway: its link stays plain.
        "before": encode_cursor(page - 1, signature, keyset.key_of(rows[0])) if page > 2 else None,
    }
