from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework import status

from tests.reports.asserts import assert_reports_error
from tests.reports.factories import ProjectFactory, ReportFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/reports"


def ids(response) -> list[int]:
    return [report["id"] for report in response.json()["data"]]


def test_list_answers_laravel_envelope_with_the_owners_reports(owner_client, user):
    reports = ReportFactory.create_batch(3, owner=user)

    response = owner_client.get(URL)

    assert response.status_code == status.HTTP_200_OK
    body = response.json()
    assert body["status"] == 200
    assert ids(response) == [report.id for report in reversed(reports)]
    assert body["meta"] == {
        "current_page": 1,
        "from": 1,
        "last_page": 1,
        "path": "http://testserver/api/v1/reports",
        "per_page": 10,
        "to": 3,
        "total": 3,
        "total_is_estimate": False,
    }
    assert body["links"] == {
        "first": "http://testserver/api/v1/reports?page=1",
        "last": "http://testserver/api/v1/reports?page=1",
        "prev": None,
        "next": None,
    }


def test_list_shows_each_report_with_its_public_fields(owner_client, user):
    report = ReportFactory(owner=user, score=42)

    item = owner_client.get(URL).json()["data"][0]

    assert item == {
        "id": report.id,
        "url": report.url,
        "project": report.project.name,
        "result": "bad",
        "score": 42,
        "scores": {"seo": 50, "performance": 100, "security": 99, "accessibility": None, "miscellaneous": 100},
        "results": report.results,
        "metrics": None,
        "status": "done",
        "error": None,
        "privacy": 0,
        "password": False,
        "generated_at": report.generated_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "created_at": report.created_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "updated_at": report.updated_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "budget": None,
    }


def test_list_leaves_out_other_users_reports(owner_client, user, other_user):
    mine = ReportFactory(owner=user)
    ReportFactory(owner=other_user)

    response = owner_client.get(URL)

    assert ids(response) == [mine.id]


def test_list_shows_password_as_a_boolean_only(owner_client, user):
    ReportFactory(owner=user, page_password="s3cret-value")

    response = owner_client.get(URL)

    assert response.json()["data"][0]["password"] is True
    assert "s3cret-value" not in response.content.decode()
    assert "md5$" not in response.content.decode()


def test_list_requires_a_key(api_client, user):
    ReportFactory(owner=user)

    response = api_client.get(URL)

    assert_reports_error(response, 401)


def test_list_of_no_reports_is_an_empty_page(owner_client):
    body = owner_client.get(URL).json()

    assert body["data"] == []
    assert body["meta"]["total"] == 0
    assert body["meta"]["from"] is None
    assert body["meta"]["to"] is None
    assert body["meta"]["last_page"] == 1


@pytest.mark.parametrize("per_page", [10, 25, 50, 100])
def test_list_pages_by_each_allowed_per_page(owner_client, user, per_page):
    ReportFactory.create_batch(per_page + 1, owner=user)

    body = owner_client.get(URL, {"per_page": per_page}).json()

    assert len(body["data"]) == per_page
    assert body["meta"]["per_page"] == per_page
    assert body["meta"]["last_page"] == 2


@pytest.mark.parametrize("per_page", ["7", "1000", "abc", "-10", ""])
def test_list_falls_back_to_ten_per_page_for_other_per_page_values(owner_client, user, per_page):
    ReportFactory.create_batch(11, owner=user)

    body = owner_client.get(URL, {"per_page": per_page}).json()

    assert len(body["data"]) == 10
    assert body["meta"]["per_page"] == 10


def test_list_second_page_has_the_next_reports_and_links(owner_client, user):
    reports = ReportFactory.create_batch(25, owner=user)

    response = owner_client.get(URL, {"page": 2, "search": "page"})

    body = response.json()
    assert ids(response) == [report.id for report in reversed(reports)][10:20]
    assert body["meta"]["current_page"] == 2
    assert body["meta"]["from"] == 11
    assert body["meta"]["to"] == 20
    assert body["meta"]["last_page"] == 3
    assert body["links"]["prev"] == "http://testserver/api/v1/reports?page=1&search=page"
    # The next link resumes after this page's last report (a cursor: docs/scale.md), a plain page 3 otherwise.
    assert body["links"]["next"].startswith("http://testserver/api/v1/reports?after=")
    assert body["links"]["next"].endswith("&page=3&search=page")
    assert ids(owner_client.get(body["links"]["next"])) == [report.id for report in reversed(reports)][20:]
    assert body["links"]["last"] == "http://testserver/api/v1/reports?page=3&search=page"


def test_list_page_past_the_end_is_empty_with_null_from_and_to(owner_client, user):
    ReportFactory.create_batch(3, owner=user)

    body = owner_client.get(URL, {"page": 99999999999999999999999}).json()

    assert body["data"] == []
    assert body["meta"]["from"] is None
    assert body["meta"]["to"] is None
    assert body["meta"]["total"] == 3
    assert body["links"]["next"] is None


@pytest.mark.parametrize("page", ["0", "-1", "abc", ""])
def test_list_unusable_page_means_the_first(owner_client, user, page):
    ReportFactory.create_batch(11, owner=user)

    body = owner_client.get(URL, {"page": page}).json()

    assert body["meta"]["current_page"] == 1
    assert len(body["data"]) == 10


def test_list_search_matches_url_case_insensitively(owner_client, user):
    match = ReportFactory(owner=user, url="https://shop.example/Garden-Tools")
    ReportFactory(owner=user, url="https://shop.example/kitchen")

    response = owner_client.get(URL, {"search": "garden", "search_by": "url"})

    assert ids(response) == [match.id]


def test_list_search_by_unknown_field_still_searches_url(owner_client, user):
    match = ReportFactory(owner=user, url="https://shop.example/garden")
    ReportFactory(owner=user, url="https://shop.example/kitchen")

    response = owner_client.get(URL, {"search": "garden", "search_by": "password"})

    assert response.status_code == status.HTTP_200_OK
    assert ids(response) == [match.id]


def test_list_filters_on_project(owner_client, user):
    project = ProjectFactory(owner=user, name="shop.example")
    match = ReportFactory(owner=user, project=project)
    ReportFactory(owner=user)

    response = owner_client.get(URL, {"project": "Shop.Example"})

    assert ids(response) == [match.id]


def test_list_filter_on_another_users_project_finds_nothing(owner_client, user, other_user):
    ReportFactory(owner=other_user, project=ProjectFactory(owner=other_user, name="shop.example"))

    response = owner_client.get(URL, {"project": "shop.example"})

    assert ids(response) == []


@pytest.mark.parametrize(("result", "score"), [("good", 90), ("decent", 60), ("bad", 10)])
def test_list_filters_on_each_result(owner_client, user, result, score):
    reports = {score: ReportFactory(owner=user, score=score) for score in (90, 60, 10)}

    response = owner_client.get(URL, {"result": result})

    assert ids(response) == [reports[score].id]


def test_list_ignores_an_unknown_result(owner_client, user):
    ReportFactory.create_batch(2, owner=user)

    response = owner_client.get(URL, {"result": "excellent"})

    assert response.status_code == status.HTTP_200_OK
    assert len(ids(response)) == 2


def test_list_filters_of_one_request_do_not_carry_over_to_the_next(owner_client, user):
    good, bad = ReportFactory(owner=user, score=90), ReportFactory(owner=user, score=10)

    filtered = owner_client.get(URL, {"result": "bad", "sort": "asc"})
    unfiltered = owner_client.get(URL)

    assert ids(filtered) == [bad.id]
    assert ids(unfiltered) == [bad.id, good.id]


def test_list_sorts_by_id_descending_by_default(owner_client, user):
    first, second = ReportFactory.create_batch(2, owner=user)

    assert ids(owner_client.get(URL)) == [second.id, first.id]


def test_list_sorts_by_id_ascending(owner_client, user):
    first, second = ReportFactory.create_batch(2, owner=user)

    assert ids(owner_client.get(URL, {"sort_by": "id", "sort": "asc"})) == [first.id, second.id]


def test_list_sorts_by_generated_at(owner_client, user):
    now = timezone.now()
    older = ReportFactory(owner=user, generated_at=now)
    newer = ReportFactory(owner=user, generated_at=now + timedelta(hours=1))
    oldest = ReportFactory(owner=user, generated_at=now - timedelta(hours=1))

    assert ids(owner_client.get(URL, {"sort_by": "generated_at"})) == [newer.id, older.id, oldest.id]
    assert ids(owner_client.get(URL, {"sort_by": "generated_at", "sort": "asc"})) == [oldest.id, older.id, newer.id]


def test_list_sorts_by_url(owner_client, user):
    b = ReportFactory(owner=user, url="https://b.example/")
    a = ReportFactory(owner=user, url="https://a.example/")
    c = ReportFactory(owner=user, url="https://c.example/")

    assert ids(owner_client.get(URL, {"sort_by": "url", "sort": "asc"})) == [a.id, b.id, c.id]
    assert ids(owner_client.get(URL, {"sort_by": "url"})) == [c.id, b.id, a.id]


def test_list_sorts_by_result_through_the_score(owner_client, user):
    decent = ReportFactory(owner=user, score=60)
    good = ReportFactory(owner=user, score=95)
    bad = ReportFactory(owner=user, score=20)
    good_lower = ReportFactory(owner=user, score=81)

    assert ids(owner_client.get(URL, {"sort_by": "result"})) == [good.id, good_lower.id, decent.id, bad.id]
    assert ids(owner_client.get(URL, {"sort_by": "result", "sort": "asc"})) == [
        bad.id,
        decent.id,
        good_lower.id,
        good.id,
    ]


@pytest.mark.parametrize("params", [{"sort_by": "password"}, {"sort": "sideways"}, {"sort_by": "", "sort": ""}])
def test_list_falls_back_to_id_descending_for_unknown_sorting(owner_client, user, params):
    first, second = ReportFactory.create_batch(2, owner=user)

    response = owner_client.get(URL, params)

    assert response.status_code == status.HTTP_200_OK
    assert ids(response) == [second.id, first.id]


def test_list_runs_the_same_queries_for_one_report_or_many(owner_client, user, django_assert_num_queries):
    ReportFactory(owner=user)
    owner_client.get(URL)  # first use of the key records last_used_at

    # the key with its user, the key's rate-limit count (a database row without Redis), the owner's
    # reports version (reports/answer_cache.py), the count, the page with its projects
    with django_assert_num_queries(5):
        owner_client.get(URL, {"per_page": 25})
    ReportFactory.create_batch(30, owner=user, project=ProjectFactory(owner=user))
    ReportFactory.create_batch(5, owner=user)
    with django_assert_num_queries(5):
        response = owner_client.get(URL, {"per_page": 50})
    assert len(response.json()["data"]) == 36
    # Asked again with nothing written since: the kept answer, whatever the page holds.
    with django_assert_num_queries(3):
        again = owner_client.get(URL, {"per_page": 50})
    assert again.content == response.content
