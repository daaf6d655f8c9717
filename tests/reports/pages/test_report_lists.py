"""The signed-in user's report and project lists: who sees what, and the API's filters."""

from datetime import UTC, datetime, timedelta

import pytest
from pytest_django.asserts import assertContains, assertNotContains, assertRedirects

from reports.models import Report
from tests.reports.asserts import assert_method_not_allowed
from tests.reports.factories import ProjectFactory, ReportFactory

pytestmark = pytest.mark.django_db

REPORTS = "/reports/"
PROJECTS = "/reports/projects"


def listed_reports(response) -> list[str]:
    return [report.url for report in response.context["page"]]


@pytest.mark.parametrize("path", [REPORTS, PROJECTS])
def test_anonymous_visitor_is_sent_to_the_login_page_and_back(client, path):
    response = client.get(path)

    assertRedirects(response, f"/accounts/login/?next={path}", fetch_redirect_response=False)


@pytest.mark.parametrize("path", [REPORTS, PROJECTS])
def test_writes_are_not_allowed(client, user, path):
    client.force_login(user)

    response = client.post(path)

    assert_method_not_allowed(response, "GET, HEAD")


def test_report_list_shows_only_the_owners_reports(client, user, other_user):
    mine = ReportFactory(owner=user, url="https://mine.example/a")
    ReportFactory(owner=other_user, url="https://theirs.example/b")
    client.force_login(user)

    response = client.get(REPORTS)

    assert response.status_code == 200
    assert listed_reports(response) == [mine.url]
    assertContains(response, f'href="/reports/{mine.pk}"')
    assertNotContains(response, "theirs.example")


def test_another_user_sees_none_of_the_owners_reports_or_projects(client, user, other_user):
    ReportFactory(owner=user, url="https://mine.example/a")
    client.force_login(other_user)

    reports = client.get(REPORTS)
    projects = client.get(PROJECTS)

    assertNotContains(reports, "mine.example")
    assertNotContains(projects, "mine.example")
    assertContains(reports, "0 reports")
    assertContains(projects, "0 projects")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("search=garden", ["https://a.example/garden"]),
        ("search=GARDEN", ["https://a.example/garden"]),
        ("project=b.example", ["https://b.example/tools", "https://b.example/"]),
        ("project=B.Example", ["https://b.example/tools", "https://b.example/"]),
        ("result=bad", ["https://b.example/tools"]),
        ("sort_by=result&sort=asc", ["https://b.example/tools", "https://b.example/", "https://a.example/garden"]),
        ("sort_by=url&sort=asc", ["https://a.example/garden", "https://b.example/", "https://b.example/tools"]),
        ("sort_by=generated_at", ["https://b.example/", "https://a.example/garden", "https://b.example/tools"]),
    ],
)
def test_report_list_filters_like_the_api(client, user, query, expected):
    now = datetime(2026, 11, 1, tzinfo=UTC)
    a = ProjectFactory(owner=user, name="a.example")
    b = ProjectFactory(owner=user, name="b.example")
    ReportFactory(owner=user, project=a, url="https://a.example/garden", score=90, generated_at=now)
    ReportFactory(owner=user, project=b, url="https://b.example/", score=60, generated_at=now + timedelta(days=1))
    ReportFactory(owner=user, project=b, url="https://b.example/tools", score=20, generated_at=now - timedelta(days=1))
    client.force_login(user)

    response = client.get(f"{REPORTS}?{query}")

    assert listed_reports(response) == expected


@pytest.mark.parametrize(
    "query",
    [
        "result=excellent",
        "sort_by=password",
        "sort=sideways",
        "per_page=7",
        "per_page=abc",
        "page=0",
        "page=-1",
        "page=abc",
        "page=99999999999999999999",
        "search_by=owner",
        "project=%00",
    ],
)
def test_unusable_parameters_fall_back_to_the_defaults_instead_of_failing(client, user, query):
    first, second = ReportFactory.create_batch(2, owner=user)
    client.force_login(user)

    response = client.get(f"{REPORTS}?{query}")
    projects = client.get(f"{PROJECTS}?{query}")

    # The defaults: the first page, newest first, nothing filtered out.
    assert response.status_code == projects.status_code == 200
    assert (response.context["page"].number, listed_reports(response)) == (1, [second.url, first.url])
    assert (projects.context["page"].number, [project.name for project in projects.context["page"]]) == (
        1,
        [second.project.name, first.project.name],
    )


def test_an_overlong_search_finds_nothing_instead_of_failing(client, user):
    ReportFactory(owner=user, url="https://shop.example/" + "x" * 100)
    client.force_login(user)

    response = client.get(f"{REPORTS}?search={'x' * 5000}")
    projects = client.get(f"{PROJECTS}?search={'x' * 5000}")

    assert response.status_code == projects.status_code == 200
    assert listed_reports(response) == []
    assert list(projects.context["page"]) == []
    assertContains(response, "shop.example", count=0)


def test_unknown_sort_values_list_by_newest_id_as_the_api_does(client, user):
    first, second = ReportFactory(owner=user), ReportFactory(owner=user)
    client.force_login(user)

    response = client.get(f"{REPORTS}?sort_by=password&sort=sideways&result=excellent")

    assert listed_reports(response) == [second.url, first.url]


def test_report_list_pages_with_per_page_and_keeps_the_filters_in_the_links(client, user):
    project = ProjectFactory(owner=user, name="many.example")
    ReportFactory.create_batch(12, owner=user, project=project)
    client.force_login(user)

    first = client.get(f"{REPORTS}?project=many.example")
    second = client.get(f"{REPORTS}?project=many.example&page=2")
    wide = client.get(f"{REPORTS}?per_page=25")

    assert len(first.context["page"]) == 10
    after = first.context["page"].cursors["after"]
    # The next link keeps the filters and carries the cursor to resume from (docs/scale.md).
    assertContains(first, f'href="?project=many.example&amp;page=2&amp;after={after}"')
    assert [
        report.pk for report in client.get(f"{REPORTS}?project=many.example&page=2&after={after}").context["page"]
    ] == [report.pk for report in second.context["page"]]
    assert len(second.context["page"]) == 2
    assert len(wide.context["page"]) == 12


def test_project_list_shows_each_project_with_its_score_chart(client, user, other_user):
    project = ProjectFactory(owner=user, name="shop.example")
    start = datetime(2026, 10, 1, tzinfo=UTC)
    for day, score in enumerate([40, 55, 85]):
        ReportFactory(
            owner=user,
            project=project,
            url="https://shop.example/",
            score=score,
            generated_at=start + timedelta(days=day),
        )
    ReportFactory(owner=user, project=project, url="https://shop.example/b", score=70, generated_at=start)
    ProjectFactory(owner=other_user, name="secret.example")
    client.force_login(user)

    response = client.get(PROJECTS)

    assertContains(response, "shop.example")
    assertContains(response, "4 reports")
    assertContains(response, "Overall score of 2 URLs from Oct. 1, 2026 to Oct. 3, 2026.")
    assertContains(response, "https://shop.example/: 3 reports, score 40 to 85 (up 45).")
    assertContains(response, 'class="score-point"', count=4)
    assertContains(response, 'class="score-line"', count=1)  # one line per URL, not one through every URL
    assertContains(response, "Good from 80")
    assertContains(response, "Decent from 50")
    assertContains(response, f'href="{REPORTS}?project=shop.example"')
    assertNotContains(response, "secret.example")


def test_project_list_says_when_a_scheduled_project_runs_next(client, user):
    ProjectFactory(owner=user, name="plain.example")
    ProjectFactory(
        owner=user, name="shop.example", schedule="weekly", next_run_at=datetime(2026, 12, 1, 3, 0, tzinfo=UTC)
    )
    client.force_login(user)

    response = client.get(PROJECTS)

    assertContains(response, "re-run weekly, next", count=1)
    assertContains(response, '<time datetime="2026-12-01T03:00:00+00:00">Dec. 1, 2026, 3 a.m. UTC</time>', html=True)


def test_project_list_filters_and_sorts_like_the_api(client, user):
    for name in ("b.example", "a.example", "c.test"):
        ProjectFactory(owner=user, name=name)
    client.force_login(user)

    response = client.get(f"{PROJECTS}?search=EXAMPLE&sort_by=project&sort=asc")

    assert [project.name for project, _ in response.context["rows"]] == ["a.example", "b.example"]


def test_project_list_charts_are_made_in_a_fixed_number_of_queries(client, user, django_assert_max_num_queries):
    for _ in range(5):
        ReportFactory.create_batch(3, owner=user, project=ProjectFactory(owner=user))
    client.force_login(user)

    # session, user, count, page, the charts' scores: not one query per project.
    with django_assert_max_num_queries(6):
        response = client.get(PROJECTS)

    assertContains(response, 'class="score-point"', count=15)


def test_report_list_is_made_in_a_fixed_number_of_queries(client, user, django_assert_max_num_queries):
    for _ in range(4):
        ReportFactory.create_batch(5, owner=user, project=ProjectFactory(owner=user))
    client.force_login(user)

    # session, user, count, page (with its projects), the project choices: not one query per report.
    with django_assert_max_num_queries(6):
        response = client.get(f"{REPORTS}?per_page=25")

    assert len(response.context["page"]) == 20


def test_report_list_shows_an_unfinished_report_with_its_status(client, user):
    report = ReportFactory(owner=user, status=Report.Status.QUEUED, score=None, result="", generated_at=None)
    client.force_login(user)

    response = client.get(REPORTS)

    assertContains(response, f'href="/reports/{report.pk}/progress">Queued</a>')
    assertContains(response, "not yet")


def test_project_chart_leaves_out_reports_not_analysed_yet(client, user):
    project = ProjectFactory(owner=user)
    ReportFactory(owner=user, project=project, score=60)
    ReportFactory(owner=user, project=project, status=Report.Status.QUEUED, score=None, result="", generated_at=None)
    client.force_login(user)

    response = client.get(PROJECTS)

    assertContains(response, "2 reports")
    assertContains(response, 'class="score-point"', count=1)


def test_project_chart_draws_the_category_score_asked_for(client, user):
    project = ProjectFactory(owner=user)
    ReportFactory(owner=user, project=project, score=60, score_security=33)
    client.force_login(user)

    response = client.get(PROJECTS, {"chart": "security"})

    assertContains(response, 'Security score, latest: <span class="score score-latest">33</span>', html=False)
    assertContains(response, '<option value="security" selected>')
    fallback = client.get(PROJECTS, {"chart": "nonsense"})
    assertContains(fallback, 'Overall score, latest: <span class="score score-latest">60</span>', html=False)


def test_report_list_labels_its_values_for_narrow_screens(client, user):
    ReportFactory(owner=user)
    client.force_login(user)

    response = client.get(REPORTS)

    for label in ("Project", "Score", "Generated"):
        assertContains(response, f'<td data-label="{label}">', count=1)
