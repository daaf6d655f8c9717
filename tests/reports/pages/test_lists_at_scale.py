"""The HTML report list and the project charts read as the API does (common.paging), and the admin lists."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from pytest_django.asserts import assertContains, assertNotContains

from common import paging
from reports.models import Report
from reports.views import lists
from reports.views.lists import CHART_POINTS
from tests.reports.factories import ProjectFactory, ReportFactory

pytestmark = pytest.mark.django_db


def test_the_chart_draws_the_newest_analysed_reports_ties_included(client, user):
    project = ProjectFactory(owner=user)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    # Three at a time share an instant, so the cutoff falls among equal ones.
    # One URL, so one line holds every point the chart draws.
    made = [
        ReportFactory(
            owner=user,
            project=project,
            url="https://a.example/page",
            score=n % 101,
            generated_at=start + timedelta(hours=n // 3),
        )
        for n in range(CHART_POINTS + 8)
    ]
    client.force_login(user)

    response = client.get("/reports/projects")

    newest = sorted(made, key=lambda report: (report.generated_at, report.id))[-CHART_POINTS:]
    chart = response.context["rows"][0][1]
    assert [(point.generated_at, point.score) for point in chart.points] == [
        (report.generated_at, report.score) for report in newest
    ]
    assert project.reports.count() == CHART_POINTS + 8


def test_the_html_list_pages_equal_the_api_pages_past_the_exact_count(client, user, monkeypatch):
    monkeypatch.setattr(paging, "EXACT_COUNT_LIMIT", 4)
    project = ProjectFactory(owner=user)
    made = [ReportFactory(owner=user, project=project, url=f"https://a.example/{n % 5}") for n in range(23)]
    client.force_login(user)

    listed, page = [], 1
    while True:
        response = client.get("/reports/", {"search": "a.example", "sort_by": "url", "page": page})
        listed += [report.pk for report in response.context["page"]]
        if not response.context["page"].has_next():
            break
        page += 1

    assert listed == [report.pk for report in sorted(made, key=lambda report: (report.url, report.pk), reverse=True)]
    first = client.get("/reports/", {"search": "a.example"})
    estimated = connection.vendor == "postgresql"
    assert first.context["page"].paginator.count_is_estimate is estimated
    assertContains(first, "About " if estimated else "23 reports")


def test_the_admin_lists_page_through_every_report_without_counting_the_table(admin_client, user, monkeypatch):
    monkeypatch.setattr(paging, "EXACT_COUNT_LIMIT", 150)
    ReportFactory.create_batch(160, owner=user, project=ProjectFactory(owner=user))

    first = admin_client.get("/admin/reports/report/")
    pages = [first] + [
        admin_client.get("/admin/reports/report/", {"p": page})
        for page in range(2, -(-160 // paging.LARGE_TABLE_PER_PAGE) + 1)
    ]

    listed = [report.pk for response in pages for report in response.context["cl"].result_list]
    assert listed == list(Report.objects.order_by("-pk").values_list("pk", flat=True))
    assert first.context["cl"].show_full_result_count is False
    if connection.vendor == "sqlite":
        assertContains(first, "160 reports")


def test_a_huge_page_past_an_estimated_count_is_an_empty_list(client, user, monkeypatch):
    monkeypatch.setattr(paging, "EXACT_COUNT_LIMIT", 2)
    ReportFactory.create_batch(4, owner=user, url="https://a.example/x")
    client.force_login(user)

    response = client.get("/reports/", {"search": "a.example", "page": str(10**25)})

    assert response.status_code == 200
    # SQLite counts exactly, and Django's paginator then shows the last page.
    assert len(response.context["page"]) == (0 if connection.vendor == "postgresql" else 4)


def test_the_project_field_suggests_the_newest_projects_only_and_filters_on_any(client, user, other_user, monkeypatch):
    monkeypatch.setattr(lists, "PROJECT_MENU_SIZE", 3)
    oldest = ProjectFactory(owner=user, name="old.example")
    ReportFactory(owner=user, project=oldest, url="https://old.example/page")
    for name in ("d.example", "b.example", "c.example"):
        ProjectFactory(owner=user, name=name)
    ProjectFactory(owner=other_user, name="theirs.example")
    client.force_login(user)

    response = client.get("/reports/")

    assert response.context["projects"] == ["b.example", "c.example", "d.example"]
    assertContains(response, '<option value="c.example"></option>', html=True)
    assertNotContains(response, '<option value="old.example"></option>', html=True)
    assertNotContains(response, "theirs.example")
    # A project past the suggestions is still typed into the same field.
    filtered = client.get("/reports/", {"project": "OLD.example"})
    assert [report.url for report in filtered.context["page"]] == ["https://old.example/page"]
    assertContains(filtered, 'value="OLD.example"')


def test_the_report_list_needs_a_signed_in_user(client):
    response = client.get("/reports/")

    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


@pytest.mark.parametrize(("sort_by", "sort"), [("id", "desc"), ("url", "asc"), ("url", "desc"), ("result", "asc")])
def test_html_pages_through_the_pager_links_equal_the_offset_query_both_ways(client, user, sort_by, sort):
    import re
    from html import unescape

    project = ProjectFactory(owner=user)
    for n in range(23):
        ReportFactory(owner=user, project=project, url=f"https://a.example/{n % 5}", score=n % 3 * 40)
    order = {"id": ("id",), "url": ("url", "id"), "result": ("score", "id")}[sort_by]
    expected = list(
        Report.objects.filter(owner=user)
        .order_by(*(field if sort == "asc" else f"-{field}" for field in order))
        .values_list("pk", flat=True)
    )
    client.force_login(user)

    def walk(url: str, rel: str) -> list[list[int]]:
        pages = []
        while url:
            response = client.get(url)
            pages.append([report.pk for report in response.context["page"]])
            link = re.search(rf'<a rel="{rel}" href="([^"]+)"', response.content.decode())
            url = f"/reports/{unescape(link.group(1))}" if link else None
        return pages

    pages = [expected[offset : offset + 10] for offset in range(0, 23, 10)]
    assert walk(f"/reports/?sort_by={sort_by}&sort={sort}", "next") == pages
    assert walk(f"/reports/?sort_by={sort_by}&sort={sort}&page=3", "prev") == pages[::-1]
