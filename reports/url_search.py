"""`search=` (URL contains, any case) served by an index on both databases.

PostgreSQL: Django's `UPPER(url) LIKE UPPER('%…%')` is served by the pg_trgm GIN index
(migration 0008_scale). SQLite has no such index type; there an FTS5 table with the trigram
tokenizer (`reports_report_url_fts`, kept by triggers: migration 0011_sqlite_url_search) finds
the reports whose URL holds each three-character piece of the term, and the same LIKE as before
then decides. So the results are LIKE's, exactly, on either database: the FTS match only narrows
which rows LIKE reads (a count of 14,000 matches among 10⁵ reports read every row before: 2.5 s).
A term under three characters has no trigram and keeps the plain LIKE.

On PostgreSQL the index serves rare terms. A common term is served by the list's sort instead
(common.paging): its count stops at 100 matches and the planner's estimate answers past that
when it is large, and its pages walk the sort's index, filtering by the LIKE, without bitmap
scans: the GIN bitmap of a trigram in one URL of seven holds 140,000 rows at 10⁶ (docs/scale.md,
"A common search term at 10⁶").
"""

from django.db import connections
from django.db.models import QuerySet
from django.db.models.expressions import RawSQL

FTS_TABLE = "reports_report_url_fts"
# The trigram tokenizer matches terms of at least this many characters.
MIN_TERM = 3


def has_fts(alias: str) -> bool:
    """Whether the SQLite database has the FTS table (the migration skips it where FTS5 is missing)."""
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = %s", [FTS_TABLE])
        return cursor.fetchone() is not None


def url_contains(queryset: QuerySet, term: str) -> QuerySet:
    """`queryset`'s reports whose URL contains `term` in any case (Django's icontains)."""
    matching = queryset.filter(url__icontains=term)
    if connections[queryset.db].vendor != "sqlite" or len(term) < MIN_TERM or not has_fts(queryset.db):
        return matching
    # An FTS5 phrase: the term's trigrams in a row. Double quotes are doubled inside it.
    phrase = '"' + term.replace('"', '""') + '"'
    candidates = RawSQL(f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s", [phrase])
    return matching.filter(pk__in=candidates)
