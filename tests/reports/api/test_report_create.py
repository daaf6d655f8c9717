import pytest
from django.contrib.auth.hashers import check_password
from rest_framework import status

from reports.models import Project, Report
from tests.reports.asserts import Fields, StartsWith, assert_reports_error
from tests.reports.factories import ProjectFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/reports"
UNREACHABLE = "http://127.0.0.1:9/nothing-listens-here"


def test_create_analyses_the_page_and_answers_201_with_the_report(owner_client, test_site):
    page = test_site.url("/good")

    response = owner_client.post(URL, {"url": page})

    assert response.status_code == status.HTTP_201_CREATED
    body = response.json()
    assert body["status"] == 200
    report = Report.objects.get()
    assert body["data"]["id"] == report.id
    assert body["data"]["url"] == page
    assert body["data"]["project"] == "127.0.0.1"
    assert body["data"]["score"] == report.score
    assert body["data"]["result"] == report.result
    assert body["data"]["results"] == report.results
    assert body["data"]["privacy"] == 0
    assert body["data"]["password"] is False
    assert set(report.results) >= {"seo", "performance", "security", "miscellaneous"}
    assert report.results["seo"]["title"]["passed"] is True


def test_create_rates_a_poor_page_below_a_good_one(owner_client, test_site):
    good = owner_client.post(URL, {"url": test_site.url("/good")}).json()["data"]

    bad = owner_client.post(URL, {"url": test_site.url("/bad", site="bad")}).json()["data"]

    assert bad["score"] < good["score"]
    assert good["result"] == "decent"  # served over plain HTTP, which keeps a page below "good"
    assert bad["result"] == "bad"


def test_create_makes_the_project_named_after_the_host(owner_client, user, test_site):
    owner_client.post(URL, {"url": test_site.url("/good")})

    project = Project.objects.get()
    assert project.owner == user
    assert project.name == "127.0.0.1"
    assert Report.objects.get().project == project


def test_create_reuses_the_owners_project_of_the_same_host(owner_client, user, test_site):
    existing = ProjectFactory(owner=user, name="127.0.0.1")

    owner_client.post(URL, {"url": test_site.url("/good")})
    owner_client.post(URL, {"url": test_site.url("/bad")})

    assert list(Project.objects.all()) == [existing]
    assert Report.objects.filter(project=existing).count() == 2


def test_create_does_not_use_another_users_project_of_the_same_host(owner_client, user, other_user, test_site):
    ProjectFactory(owner=other_user, name="127.0.0.1")

    owner_client.post(URL, {"url": test_site.url("/good")})

    assert Report.objects.get().project.owner == user
    assert Project.objects.count() == 2


def test_create_accepts_a_json_body(owner_client, test_site):
    response = owner_client.post(URL, {"url": test_site.url("/good"), "privacy": 1}, format="json")

    assert response.status_code == status.HTTP_201_CREATED
    assert Report.objects.get().privacy == Report.Privacy.PRIVATE


def test_create_with_password_privacy_stores_only_a_hash(owner_client, test_site):
    response = owner_client.post(URL, {"url": test_site.url("/good"), "privacy": 2, "password": "open sesame"})

    assert response.status_code == status.HTTP_201_CREATED
    assert response.json()["data"]["password"] is True
    assert "open sesame" not in response.content.decode()
    report = Report.objects.get()
    assert report.password != "open sesame"
    assert check_password("open sesame", report.password)


def test_create_ignores_a_password_without_password_privacy(owner_client, test_site):
    response = owner_client.post(URL, {"url": test_site.url("/good"), "privacy": 0, "password": "unused"})

    assert response.json()["data"]["password"] is False
    assert Report.objects.get().password == ""


def test_create_of_an_unreachable_page_is_422_naming_the_cause_and_stores_nothing(owner_client, test_site):
    response = owner_client.post(URL, {"url": UNREACHABLE})

    body = assert_reports_error(response, 422, {"url": [StartsWith("The page could not be analysed: ")]})
    assert len(body["message"]["url"][0]) > len("The page could not be analysed: ")
    assert not Report.objects.exists()
    assert not Project.objects.exists()


def test_create_refuses_private_addresses_outside_tests(owner_client, test_site, settings):
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = False

    response = owner_client.post(URL, {"url": test_site.url("/good")})

    assert_reports_error(
        response,
        422,
        {"url": ["The url points to a loopback address (127.0.0.1); only pages on public addresses can be analysed."]},
    )
    assert not Report.objects.exists()


def test_create_refuses_a_private_address_before_queuing_anything(owner_client, settings):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}  # no analysis would run
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = False

    response = owner_client.post(URL, {"url": "http://[fec0::1]/admin"})

    assert_reports_error(
        response,
        422,
        {"url": ["The url points to a site-local address (fec0::1); only pages on public addresses can be analysed."]},
    )
    assert not Report.objects.exists()
    assert not Project.objects.exists()


def test_create_without_a_key_is_unauthenticated_and_stores_nothing(api_client, test_site):
    response = api_client.post(URL, {"url": test_site.url("/good")})

    assert_reports_error(response, 401)
    assert not Report.objects.exists()


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({}, "url", "The url field is required."),
        ({"url": ""}, "url", "The url field is required."),
        ({"url": "not a url"}, "url", "The url must be a valid http or https URL."),
        ({"url": "ftp://example.com/file"}, "url", "The url must be a valid http or https URL."),
        ({"url": "javascript:alert(1)"}, "url", "The url must be a valid http or https URL."),
        ({"url": "https://example.com/" + "a" * 2100}, "url", "The url may not be greater than 2048 characters."),
        ({"url": "https://user:secret@example.com/"}, "url", "The url must not contain a user name or password."),
        ({"url": "https://example.com/", "privacy": "3"}, "privacy", "The privacy must be 0, 1 or 2."),
        ({"url": "https://example.com/", "privacy": "public"}, "privacy", "The privacy must be 0, 1 or 2."),
        (
            {"url": "https://example.com/", "privacy": "2"},
            "password",
            "The password field is required when privacy is 2.",
        ),
        (
            {"url": "https://example.com/", "privacy": "2", "password": ""},
            "password",
            "The password field is required when privacy is 2.",
        ),
        (
            {"url": "https://example.com/", "privacy": "2", "password": "x" * 129},
            "password",
            "The password may not be greater than 128 characters.",
        ),
    ],
)
def test_create_rejects_invalid_form_input_with_422_and_stores_nothing(owner_client, data, field, message):
    response = owner_client.post(URL, data)

    assert_reports_error(response, 422, {field: [message]})
    assert not Report.objects.exists()


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"url": ["https://example.com/"]}, "url"),
        ({"url": {"href": "https://example.com/"}}, "url"),
        ({"url": None}, "url"),
        ({"url": 12345}, "url"),
        ({"url": "https://example.com/", "privacy": True}, "privacy"),
        ({"url": "https://example.com/", "privacy": [1]}, "privacy"),
        ({"url": "https://example.com/", "privacy": 2, "password": 1234}, "password"),
        ({"url": "https://example.com/", "privacy": 2, "password": ["a"]}, "password"),
    ],
)
def test_create_rejects_wrong_json_types_with_422(owner_client, data, field):
    response = owner_client.post(URL, data, format="json")

    assert_reports_error(response, 422, Fields(field))
    assert not Report.objects.exists()


def test_create_rejects_a_json_body_that_is_not_an_object(owner_client):
    response = owner_client.post(URL, ["https://example.com/"], format="json")

    assert_reports_error(response, 422, {"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]})
    assert not Report.objects.exists()


def test_create_reports_every_invalid_field_at_once(owner_client):
    response = owner_client.post(URL, {"url": "nope", "privacy": "9"})

    assert_reports_error(response, 422, Fields("url", "privacy"))
    assert not Report.objects.exists()
