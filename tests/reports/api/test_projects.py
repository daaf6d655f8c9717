from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone
from rest_framework import status

from reports.models import Project, Report
from tests.reports.asserts import assert_reports_error
from tests.reports.factories import ProjectFactory, ReportFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/projects"


def names(response) -> list[str]:
    return [project["project"] for project in response.json()["data"]]


def make_projects(owner, *names_oldest_first: str) -> list[Project]:
    now = timezone.now()
    projects = []
    for age, name in enumerate(reversed(names_oldest_first)):
        project = ProjectFactory(owner=owner, name=name)
        Project.objects.filter(pk=project.pk).update(created_at=now - timedelta(days=age))
        projects.append(project)
    return projects


def test_list_answers_the_owners_projects_newest_first(owner_client, user, other_user):
    make_projects(user, "a.example", "b.example")
    ProjectFactory(owner=other_user, name="c.example")

    response = owner_client.get(URL)

    assert response.status_code == status.HTTP_200_OK
    assert names(response) == ["b.example", "a.example"]
    body = response.json()
    assert body["status"] == 200
    assert body["meta"]["total"] == 2
    assert body["meta"]["path"] == "http://testserver/api/v1/projects"


def test_list_shows_project_and_created_at(owner_client, user):
    project = ProjectFactory(owner=user, name="shop.example")

    item = owner_client.get(URL).json()["data"][0]

    assert item == {
        "project": "shop.example",
        "budget": None,
        "alert_email": None,
        "schedule": "none",
        "next_run_at": None,
        "last_run_at": None,
        "created_at": project.created_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
    }


def test_list_requires_a_key(api_client):
    response = api_client.get(URL)

    assert_reports_error(response, 401)


def test_list_searches_project_names(owner_client, user):
    make_projects(user, "shop.example", "blog.example", "SHOP.test")

    response = owner_client.get(URL, {"search": "shop", "search_by": "project"})

    assert names(response) == ["SHOP.test", "shop.example"]


def test_list_search_by_unknown_field_still_searches_project(owner_client, user):
    make_projects(user, "shop.example", "blog.example")

    response = owner_client.get(URL, {"search": "blog", "search_by": "created_at"})

    assert names(response) == ["blog.example"]


def test_list_sorts_by_project_name(owner_client, user):
    make_projects(user, "b.example", "c.example", "a.example")

    assert names(owner_client.get(URL, {"sort_by": "project", "sort": "asc"})) == [
        "a.example",
        "b.example",
        "c.example",
    ]
    assert names(owner_client.get(URL, {"sort_by": "project"})) == ["c.example", "b.example", "a.example"]


def test_list_sorts_by_created_at_ascending(owner_client, user):
    make_projects(user, "b.example", "c.example", "a.example")

    assert names(owner_client.get(URL, {"sort_by": "created_at", "sort": "asc"})) == [
        "b.example",
        "c.example",
        "a.example",
    ]


@pytest.mark.parametrize("params", [{"sort_by": "id"}, {"sort": "up"}, {"per_page": "3"}, {"page": "x"}])
def test_list_falls_back_to_defaults_for_unknown_values(owner_client, user, params):
    make_projects(user, "a.example", "b.example")

    response = owner_client.get(URL, params)

    assert response.status_code == status.HTTP_200_OK
    assert names(response) == ["b.example", "a.example"]
    assert response.json()["meta"]["per_page"] == 10


@pytest.mark.parametrize("per_page", [10, 25, 50, 100])
def test_list_pages_by_each_allowed_per_page(owner_client, user, per_page):
    ProjectFactory.create_batch(per_page + 1, owner=user)

    body = owner_client.get(URL, {"per_page": per_page, "page": 2}).json()

    assert len(body["data"]) == 1
    assert body["meta"]["from"] == per_page + 1
    assert body["links"]["prev"] == f"http://testserver/api/v1/projects?page=1&per_page={per_page}"


def test_list_runs_the_same_queries_for_one_project_or_many(owner_client, user, django_assert_num_queries):
    ProjectFactory(owner=user)
    owner_client.get(URL)

    # the key, the key's rate-limit count (a database row without Redis), the kept count, the page
    with django_assert_num_queries(4):
        owner_client.get(URL)
    ProjectFactory.create_batch(20, owner=user)
    with django_assert_num_queries(4):
        owner_client.get(URL, {"per_page": 25})


def test_delete_removes_the_project_and_all_its_reports(owner_client, user):
    project = ProjectFactory(owner=user, name="shop.example")
    ReportFactory.create_batch(3, owner=user, project=project)
    kept = ReportFactory(owner=user)

    response = owner_client.delete(f"{URL}/shop.example")

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"id": "shop.example", "object": "project", "deleted": True, "status": 200}
    assert not Project.objects.filter(pk=project.pk).exists()
    assert list(Report.objects.all()) == [kept]


def test_delete_finds_the_project_in_any_case(owner_client, user):
    ProjectFactory(owner=user, name="shop.example")

    response = owner_client.delete(f"{URL}/Shop.Example")

    assert response.status_code == status.HTTP_200_OK
    assert not Project.objects.exists()


def test_delete_of_another_users_project_is_not_found_and_keeps_it(owner_client, other_user):
    project = ProjectFactory(owner=other_user, name="shop.example")
    ReportFactory(owner=other_user, project=project)

    response = owner_client.delete(f"{URL}/shop.example")

    assert_reports_error(response, 404)
    assert Report.objects.filter(project=project).count() == 1


def test_delete_leaves_another_users_project_of_the_same_name(owner_client, user, other_user):
    ProjectFactory(owner=user, name="shop.example")
    theirs = ReportFactory(owner=other_user, project=ProjectFactory(owner=other_user, name="shop.example"))

    owner_client.delete(f"{URL}/shop.example")

    assert Report.objects.filter(pk=theirs.pk).exists()


def test_delete_of_an_unknown_project_is_not_found(owner_client):
    response = owner_client.delete(f"{URL}/nothing.example")

    assert_reports_error(response, 404)


def test_delete_without_a_key_is_unauthenticated_and_keeps_the_project(api_client, user):
    ProjectFactory(owner=user, name="shop.example")

    response = api_client.delete(f"{URL}/shop.example")

    assert_reports_error(response, 401)
    assert Project.objects.exists()


@pytest.mark.parametrize(("sort_by", "sort"), [("created_at", "desc"), ("created_at", "asc"), ("project", "asc")])
def test_project_pages_through_the_links_equal_the_offset_query(owner_client, user, sort_by, sort):
    for n in range(23):
        project = ProjectFactory(owner=user, name=f"p{n:02}.example")
        # Ties on created_at: the id breaks them.
        Project.objects.filter(pk=project.pk).update(created_at=datetime(2026, 1, 1 + n % 4, tzinfo=UTC))
    order = {"created_at": ("created_at", "id"), "project": ("name",)}[sort_by]
    expected = list(
        Project.objects.filter(owner=user)
        .order_by(*(field if sort == "asc" else f"-{field}" for field in order))
        .values_list("name", flat=True)
    )

    names, url, links = [], f"/api/v1/projects?sort_by={sort_by}&sort={sort}", []
    while url:
        body = owner_client.get(url).json()
        names += [project["project"] for project in body["data"]]
        url = body["links"]["next"]
        links.append(url)

    assert names == expected
    assert "after=" in links[0]
