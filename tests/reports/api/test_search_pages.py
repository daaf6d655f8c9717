"""GET /api/v1/reports?search=: every page is what `url__icontains` gives, however it is reached.

Run on SQLite and on PostgreSQL (DATABASE_URL). With the exact count capped low, a frequent
term takes PostgreSQL's estimated path (common.paging.list_total); a rare term and a term
matching nothing stay exact.
"""

import pytest
from django.db import connection
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL
from django.test.utils import CaptureQueriesContext

from common import paging
from reports.models import Report
from tests.reports.factories import ProjectFactory, ReportFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/reports"
PER_PAGE = 10


@pytest.fixture
def reports(user, other_user):
    """34 of alice's reports, "abc" in two of three URLs (any case), "rare" in two; a few of bob's."""
    project = ProjectFactory(owner=user, name="search.example")
    for n in range(34):
        path = ("docs/ABC-guide", "x-abcdef", "plain")[n % 3]
        suffix = "/rare" if n in (5, 29) else ""
        ReportFactory(owner=user, project=project, url=f"https://search.example/{path}/{n}{suffix}")
    ReportFactory.create_batch(3, owner=other_user, url="https://other.example/abc/rare")


def expected_ids(user, term: str, sort: str) -> list[int]:
    reports = Report.objects.filter(owner=user, url__icontains=term)
    return list(reports.order_by("id" if sort == "asc" else "-id").values_list("id", flat=True))


def page_ids(body: dict) -> list[int]:
    return [report["id"] for report in body["data"]]


@pytest.mark.parametrize("exact_limit", [5, paging.EXACT_COUNT_LIMIT])
@pytest.mark.parametrize("sort", ["desc", "asc"])
@pytest.mark.parametrize("term", ["abc", "RARE", "nothing-matches"])
def test_every_page_of_a_search_is_the_icontains_result(
    owner_client, user, reports, monkeypatch, term, sort, exact_limit
):
    monkeypatch.setattr(paging, "EXACT_COUNT_LIMIT", exact_limit)
    expected = expected_ids(user, term, sort)
    pages = [expected[offset : offset + PER_PAGE] for offset in range(0, len(expected), PER_PAGE)] or [[]]
    params = {"search": term, "sort": sort, "per_page": PER_PAGE}

    first = owner_client.get(URL, params).json()
    followed, body = [page_ids(first)], first
    while body["links"]["next"]:
        body = owner_client.get(body["links"]["next"]).json()
        followed.append(page_ids(body))
    by_number = [page_ids(owner_client.get(URL, {**params, "page": n}).json()) for n in range(1, len(pages) + 1)]
    last = owner_client.get(URL, {**params, "page": len(pages)}).json()

    assert followed == pages
    assert by_number == pages
    assert last["links"]["next"] is None
    assert (last["meta"]["total"], last["meta"]["total_is_estimate"]) == (len(expected), False)
    estimated = len(expected) > exact_limit and connection.vendor == "postgresql"
    assert first["meta"]["total_is_estimate"] is estimated
    if estimated:
        assert first["meta"]["total"] > exact_limit
    else:
        assert first["meta"]["total"] == len(expected)


@pytest.mark.postgres
def test_the_estimate_is_planned_without_jit(user, reports):
    queryset = Report.objects.filter(owner=user, url__icontains="abc")

    with CaptureQueriesContext(connection) as queries:
        rows = paging.planner_rows(queryset)

    assert rows >= 1
    statements = [query["sql"] for query in queries.captured_queries]
    explain = next(index for index, sql in enumerate(statements) if sql.startswith("EXPLAIN"))
    assert "SET LOCAL jit = off" in statements[:explain]


@pytest.mark.postgres
@pytest.mark.parametrize(("estimate", "counted"), [(10**6, False), (12, True)])
def test_past_the_first_count_a_large_estimate_is_answered_without_counting_on(
    owner_client, user, reports, monkeypatch, estimate, counted
):
    monkeypatch.setattr(paging, "FIRST_COUNT_LIMIT", 5)
    monkeypatch.setattr(paging, "planner_rows", lambda queryset: estimate)
    counted_to = []
    capped_count = paging.capped_count
    monkeypatch.setattr(
        paging, "capped_count", lambda queryset, limit: counted_to.append(limit) or capped_count(queryset, limit)
    )
    expected = expected_ids(user, "abc", "desc")

    first = owner_client.get(URL, {"search": "abc", "per_page": PER_PAGE}).json()
    limits, counted_to[:] = counted_to[:], []
    followed, body = [page_ids(first)], first
    while body["links"]["next"]:
        body = owner_client.get(body["links"]["next"]).json()
        followed.append(page_ids(body))

    assert limits == ([5, paging.EXACT_COUNT_LIMIT] if counted else [5])
    if counted:  # a small estimate: counted on, exact up to EXACT_COUNT_LIMIT
        assert (first["meta"]["total"], first["meta"]["total_is_estimate"]) == (len(expected), False)
    else:
        assert (first["meta"]["total"], first["meta"]["total_is_estimate"]) == (estimate, True)
    assert [report_id for ids in followed for report_id in ids] == expected
    assert (body["meta"]["total"], body["meta"]["total_is_estimate"]) == (len(expected), False)


@pytest.mark.postgres
@pytest.mark.parametrize(("estimate", "falls_back"), [(50, True), (10**6, False)])
def test_a_walk_past_its_budget_gives_way_to_the_planners_plan(user, reports, monkeypatch, estimate, falls_back):
    monkeypatch.setattr(paging, "WALK_BUDGET_MS", 5)
    # Each row examined takes 2 ms: the walk of the 34 reports outlasts its budget.
    slow = RawSQL("pg_sleep(0.002)::text = ''", [], output_field=BooleanField())
    reports = Report.objects.filter(owner=user, url__icontains="abc").alias(slow=slow).filter(slow=True)
    ordered = reports.order_by("-id")

    with CaptureQueriesContext(connection) as queries:
        rows = paging.page_rows(ordered, 10, PER_PAGE, None, estimate=estimate)

    assert [report.id for report in rows] == expected_ids(user, "abc", "desc")[10 : 10 + PER_PAGE + 1]
    statements = [query["sql"] for query in queries.captured_queries]
    assert ("SET LOCAL statement_timeout TO DEFAULT" in statements) is falls_back
