"""GET /api/v1/reports as it pages, counts, sorts and searches without scanning (common.paging).

Run on SQLite and on PostgreSQL (DATABASE_URL): every page must equal what a plain
ORDER BY … OFFSET query returns, ties included, whichever end of the index it is read from.
"""

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from rest_framework import status

from common import paging
from reports.models import URL_SORT_PREFIX, Project, Report
from tests.reports.asserts import assert_reports_error
from tests.reports.factories import ProjectFactory, ReportFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/reports"
# sort_by → the fields of the equivalent plain ORDER BY (the last breaks ties).
PLAIN_ORDER = {"id": ("id",), "generated_at": ("generated_at", "id"), "url": ("url", "id"), "result": ("score", "id")}
LONG_PREFIX = "https://deep.example/" + "a" * (URL_SORT_PREFIX + 100)


@pytest.fixture
def reports(user):
    """27 reports with ties on every sort key: equal scores, instants and URLs, URLs sharing a long prefix."""
    instant = datetime(2026, 1, 1, tzinfo=UTC)
    project = ProjectFactory(owner=user, name="deep.example")
    made = []
    for n in range(27):
        url = f"{LONG_PREFIX}/{'zyx'[n % 3]}" if n % 3 else f"https://deep.example/Page-{n % 5}"
        made.append(
            ReportFactory(
                owner=user,
                project=project,
                url=url,
                score=(n * 7) % 4 * 30,
                # A few never analysed (no generated_at): where they sort differs by database.
                generated_at=None if n % 9 == 4 else instant + timedelta(hours=n % 4),
                status=Report.Status.QUEUED if n % 9 == 4 else Report.Status.DONE,
            )
        )
    return made


def all_pages(client, **params) -> tuple[list[int], list[dict]]:
    ids, metas, page = [], [], 1
    while True:
        body = client.get(URL, {**params, "page": page}).json()
        ids += [report["id"] for report in body["data"]]
        metas.append(body["meta"])
        if body["links"]["next"] is None:
            return ids, metas
        page += 1


def offset_query(user, fields: tuple[str, ...], ascending: bool, **filters) -> list[int]:
    order = [field if ascending else f"-{field}" for field in fields]
    queryset = Report.objects.filter(owner=user, **filters).order_by(*order)
    return [
        report_id
        for offset in range(0, queryset.count(), 10)
        for report_id in queryset.values_list("id", flat=True)[offset : offset + 10]
    ]


@pytest.mark.parametrize("sort", ["desc", "asc"])
@pytest.mark.parametrize("sort_by", list(PLAIN_ORDER))
def test_every_page_equals_the_offset_query_ties_included(owner_client, user, reports, sort_by, sort):
    ids, metas = all_pages(owner_client, sort_by=sort_by, sort=sort)

    assert ids == offset_query(user, PLAIN_ORDER[sort_by], sort == "asc")
    assert [meta["total"] for meta in metas] == [27, 27, 27]
    assert [meta["last_page"] for meta in metas] == [3, 3, 3]
    assert not any(meta["total_is_estimate"] for meta in metas)


def test_the_last_page_read_from_the_end_equals_the_offset_query(owner_client, user, reports):
    response = owner_client.get(URL, {"sort_by": "result", "per_page": 25, "page": 2})

    assert response.status_code == status.HTTP_200_OK
    assert [report["id"] for report in response.json()["data"]] == offset_query(user, ("score", "id"), False)[25:]
    assert (response.json()["meta"]["from"], response.json()["meta"]["to"]) == (26, 27)


def test_sort_by_url_is_the_order_of_the_whole_urls_past_the_indexed_prefix(owner_client, user, reports):
    ids, _ = all_pages(owner_client, sort_by="url", sort="asc")

    by_id = {report.id: report.url for report in reports}
    assert [by_id[report_id] for report_id in ids] == sorted(by_id.values())
    # Equal URLs keep the id order.
    assert ids == sorted(ids, key=lambda report_id: (by_id[report_id], report_id))
    assert len({url[:URL_SORT_PREFIX] for url in by_id.values() if url.startswith(LONG_PREFIX)}) == 1


@pytest.mark.parametrize(
    "search",
    [
        *("page", "PAGE-3", "zy", "/z", "aaaa/y", "%", "_", "e-", "nothing-like-it", "0%_o", 'a"b', "DEEP.EX", "p-0"),
        # Characters FTS5 queries give a meaning to: inside the quoted phrase they are text.
        *("ex", "a*b", "b:c(near)", "^d", "near", "AND", "*"),
    ],
)
def test_search_finds_what_like_finds(owner_client, user, reports, search):
    ReportFactory(owner=user, url="https://deep.example/100%_off")
    ReportFactory(owner=user, url='https://deep.example/a"b')
    ReportFactory(owner=user, url="https://deep.example/a*b:c(NEAR)^d")

    ids, metas = all_pages(owner_client, search=search, sort="asc")

    expected = sorted(report.id for report in Report.objects.filter(owner=user) if search.lower() in report.url.lower())
    assert ids == expected
    assert ids == offset_query(user, ("id",), True, url__icontains=search)
    assert metas[0]["total"] == len(expected)


def test_totals_equal_the_reports_whatever_the_filter(owner_client, user, other_user, reports):
    ReportFactory.create_batch(2, owner=other_user)
    ReportFactory(owner=user, url="https://other.example/x", score=10)

    for params, filters in [
        ({}, {}),
        ({"project": "DEEP.example"}, {"project__name": "deep.example"}),
        ({"result": "bad"}, {"result": "bad"}),
        ({"search": "zyx"}, {"url__icontains": "zyx"}),
        ({"project": "nowhere.example"}, {"project__name": "nowhere.example"}),
    ]:
        meta = owner_client.get(URL, params).json()["meta"]
        assert meta["total"] == Report.objects.filter(owner=user, **filters).count(), params
        assert meta["total_is_estimate"] is False


def test_past_the_exact_count_limit_the_pages_stay_exact_and_the_estimate_is_flagged(
    owner_client, user, reports, monkeypatch
):
    monkeypatch.setattr(paging, "EXACT_COUNT_LIMIT", 5)

    ids, metas = all_pages(owner_client, search="deep", sort_by="generated_at")

    assert ids == offset_query(user, ("generated_at", "id"), False, url__icontains="deep")
    # SQLite counts exactly; PostgreSQL answers its planner's estimate (at least the limit + 1)
    # until the last page, which knows the total.
    estimated = connection.vendor == "postgresql"
    assert [meta["total_is_estimate"] for meta in metas] == [estimated, estimated, False]
    assert all(meta["total"] >= 6 for meta in metas)
    assert metas[-1]["total"] == 27


def test_a_page_past_the_end_is_empty(owner_client, reports):
    body = owner_client.get(URL, {"page": 4}).json()

    assert body["data"] == []
    assert body["links"]["next"] is None
    assert body["meta"]["total"] == 27


def test_others_and_anonymous_clients_see_none_of_the_reports(other_client, api_client, reports):
    assert other_client.get(URL, {"page": 3}).json()["meta"]["total"] == 0
    assert other_client.get(URL, {"search": "deep"}).json()["data"] == []

    assert_reports_error(api_client.get(URL, {"page": 3, "sort_by": "url"}), 401)


@pytest.mark.parametrize("params", [{"page": "-1"}, {"page": "x"}, {"per_page": "7"}, {"page": str(10**30)}])
def test_unusable_page_values_fall_back_as_in_the_reference(owner_client, reports, params):
    response = owner_client.get(URL, params)

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["meta"]["per_page"] == 10


def test_project_counts_follow_every_insert_move_and_delete(user):
    first, second = ProjectFactory(owner=user), ProjectFactory(owner=user)
    ReportFactory.create_batch(3, owner=user, project=first)
    Report.objects.bulk_create(
        [Report(owner=user, project=second, url=f"https://x.example/{n}", results={}) for n in range(4)]
    )
    moved = Report.objects.filter(project=first).first()
    moved.project = second
    moved.save(update_fields=["project"])
    Report.objects.filter(project=second).order_by("id")[:1].get().delete()

    counts = dict(Project.objects.values_list("pk", "report_count"))
    assert counts == {first.pk: 2, second.pk: 4}
    assert counts == {project.pk: Report.objects.filter(project=project).count() for project in Project.objects.all()}


def test_the_json_download_streams_the_whole_record(client, user):
    report = ReportFactory(owner=user, results={"seo": {f"check_{n}": {"value": "é" * n} for n in range(300)}})

    response = client.get(f"/reports/{report.pk}.json")

    assert response.status_code == status.HTTP_200_OK
    assert response.streaming
    body = b"".join(response.streaming_content)
    assert json.loads(body)["results"] == report.results
    assert json.loads(body) == owner_record(report)


def owner_record(report: Report) -> dict:
    from reports.serializers import ReportSerializer

    return json.loads(json.dumps(ReportSerializer(report).data, cls=DjangoJSONEncoder))


def test_streamed_json_equals_the_whole_document_in_any_chunk_size():
    data = {"a": [1, 2.5, None, True, "é" * 100], "b": {"c": datetime(2026, 1, 1, tzinfo=UTC)}}
    whole = json.dumps(data, cls=DjangoJSONEncoder, indent=2, ensure_ascii=False).encode()

    for chunk_size in (1, 7, 64 * 1024):
        chunks = list(paging.streamed_json(data, chunk_size=chunk_size, indent=2, ensure_ascii=False))
        assert b"".join(chunks) == whole
        assert all(chunks)


def test_the_trigram_index_exists_on_postgresql_only():
    if connection.vendor == "postgresql":
        sql = "SELECT indexname FROM pg_indexes WHERE tablename = %s"
    else:
        sql = "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = %s"
    with connection.cursor() as cursor:
        cursor.execute(sql, [Report._meta.db_table])
        indexes = {row[0] for row in cursor.fetchall()}

    assert ("reports_report_url_trgm" in indexes) == (connection.vendor == "postgresql")
    assert "reports_report_owner_url" in indexes


def test_a_huge_page_past_an_estimated_total_is_empty(owner_client, reports, monkeypatch):
    monkeypatch.setattr(paging, "EXACT_COUNT_LIMIT", 5)

    response = owner_client.get(URL, {"search": "deep", "page": str(10**25)})

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["data"] == []
    assert response.json()["links"]["next"] is None


def test_search_follows_created_changed_and_deleted_urls(owner_client, user, other_user):
    """On SQLite the trigram table is kept by triggers; on PostgreSQL the GIN index: same answers."""
    kept = ReportFactory(owner=user, url="https://a.example/kiwi-tart")
    changed = ReportFactory(owner=user, url="https://a.example/kiwi-pie")
    deleted = ReportFactory(owner=user, url="https://a.example/kiwi-jam")
    ReportFactory(owner=other_user, url="https://a.example/kiwi-theirs")
    Report.objects.filter(pk=changed.pk).update(url="https://a.example/plum-pie")
    deleted.delete()
    Report.objects.bulk_create(
        [Report(owner=user, project=kept.project, url="https://a.example/KIWI-bulk", results={})]
    )

    def found(term: str) -> list[str]:
        ids, _ = all_pages(owner_client, search=term, sort="asc")
        return [Report.objects.get(pk=report_id).url for report_id in ids]

    assert found("kiwi") == ["https://a.example/kiwi-tart", "https://a.example/KIWI-bulk"]
    assert found("plum-") == ["https://a.example/plum-pie"]
    assert found("kiwi-jam") == found("kiwi-pie") == []


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's own indexes")
def test_on_sqlite_search_reads_the_trigram_table_and_sort_by_url_the_whole_url_index(user):
    from reports.filters import ReportFilterSet

    def plan(params: dict) -> str:
        queryset = ReportFilterSet(params, queryset=Report.objects.filter(owner=user)).qs.values("pk")[:10]
        sql, sql_params = queryset.query.sql_with_params()
        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN QUERY PLAN {sql}", sql_params)
            return " | ".join(str(row[-1]) for row in cursor.fetchall())

    assert "reports_report_url_fts" in plan({"search": "kiwi"})
    assert "reports_report_url_fts" not in plan({"search": "ki"})  # under a trigram: LIKE alone
    sort_plan = plan({"sort_by": "url"})
    assert "reports_report_owner_url_full" in sort_plan
    assert "TEMP B-TREE" not in sort_plan


def follow(client, url: str, link: str) -> tuple[list[list[int]], list[str | None]]:
    """Every page reached through links.<link> from `url`, and the links used."""
    pages, used = [], []
    while url:
        body = client.get(url).json()
        pages.append([report["id"] for report in body["data"]])
        url = body["links"][link]
        used.append(url)
    return pages, used


@pytest.mark.parametrize("sort", ["desc", "asc"])
@pytest.mark.parametrize("sort_by", list(PLAIN_ORDER))
def test_pages_reached_through_the_links_equal_the_offset_query_both_ways(owner_client, user, reports, sort_by, sort):
    expected = offset_query(user, PLAIN_ORDER[sort_by], sort == "asc")
    pages = [expected[offset : offset + 10] for offset in range(0, 27, 10)]

    forward, next_links = follow(owner_client, f"{URL}?sort_by={sort_by}&sort={sort}", "next")
    backward, prev_links = follow(owner_client, f"{URL}?sort_by={sort_by}&sort={sort}&page=3", "prev")

    assert forward == pages
    assert backward == pages[::-1]
    # Sorts on columns that are never NULL resume from a key; the others walk by number.
    resumes = sort_by in ("id", "url")
    assert ("after=" in next_links[0]) == resumes
    assert ("before=" in prev_links[0]) == resumes


def test_a_cursor_for_another_page_or_list_is_ignored(owner_client, user, reports):
    expected = offset_query(user, ("id",), False)
    next_link = owner_client.get(URL).json()["links"]["next"]
    after = next_link.split("after=")[1].split("&")[0]

    # Made for page 2 of the unfiltered list: on page 3, or with another per_page, it means nothing.
    third = owner_client.get(URL, {"page": 3, "after": after}).json()
    resized = owner_client.get(URL, {"page": 2, "per_page": 25, "after": after}).json()
    garbage = owner_client.get(URL, {"page": 2, "after": "!!not-a-cursor", "before": "e30"}).json()

    assert [report["id"] for report in third["data"]] == expected[20:]
    assert [report["id"] for report in resized["data"]] == expected[25:]
    assert [report["id"] for report in garbage["data"]] == expected[10:20]


def test_a_cursor_resumes_after_its_row_when_reports_were_added_meanwhile(owner_client, user, reports):
    first = owner_client.get(URL).json()
    ReportFactory(owner=user, url="https://deep.example/new")

    second = owner_client.get(first["links"]["next"]).json()

    # A page number would now repeat the first page's last report; the cursor goes on after it.
    assert [report["id"] for report in second["data"]] == offset_query(user, ("id",), False)[11:21]
    assert second["meta"]["total"] == 28
