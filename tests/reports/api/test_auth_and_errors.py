import json

import pytest
from rest_framework import status
from rest_framework.test import APIClient

from pastes.models import ApiKey as PastesApiKey
from reports.models import ApiKey, Project, Report
from tests.reports.asserts import StartsWith, assert_reports_error
from tests.reports.factories import ReportFactory

pytestmark = [pytest.mark.django_db, pytest.mark.log_without_tracebacks]


@pytest.fixture
def raw_key(user) -> str:
    return ApiKey.issue(user=user)[1]


@pytest.mark.parametrize(
    "header",
    [
        "Bearer rpt_not-a-real-key",
        "Bearer",
        "Bearer   ",
        "Basic dXNlcjpwYXNz",
        "Token rpt_whatever",
        "garbage",
    ],
)
def test_bad_authorization_headers_are_unauthenticated(api_client, header):
    response = api_client.get("/api/v1/reports", HTTP_AUTHORIZATION=header)

    assert_reports_error(response, 401)


def test_bare_key_without_bearer_is_unauthenticated(api_client, raw_key):
    response = api_client.get("/api/v1/reports", HTTP_AUTHORIZATION=raw_key)

    assert_reports_error(response, 401)


def test_bearer_keyword_is_case_insensitive(api_client, user, raw_key):
    report = ReportFactory(owner=user)

    response = api_client.get("/api/v1/reports", HTTP_AUTHORIZATION=f"bearer {raw_key}")

    assert response.status_code == status.HTTP_200_OK
    assert [item["id"] for item in response.json()["data"]] == [report.id]


def test_revoked_key_is_unauthenticated(api_client, user, raw_key):
    ApiKey.objects.get(user=user).revoke()

    response = api_client.get("/api/v1/reports", HTTP_AUTHORIZATION=f"Bearer {raw_key}")

    assert_reports_error(response, 401)


def test_key_of_a_deactivated_user_is_unauthenticated(api_client, user, raw_key):
    user.is_active = False
    user.save()

    response = api_client.get("/api/v1/reports", HTTP_AUTHORIZATION=f"Bearer {raw_key}")

    assert_reports_error(response, 401)


def test_pastes_key_does_not_open_the_reports_api(api_client, user):
    _, pastes_key = PastesApiKey.issue(user=user)

    response = api_client.get("/api/v1/reports", HTTP_AUTHORIZATION=f"Bearer {pastes_key}")

    assert_reports_error(response, 401)


def test_signed_in_session_without_a_key_is_unauthenticated(client, user):
    client.force_login(user)

    response = client.get("/api/v1/reports")

    assert_reports_error(response, 401)


def test_unauthenticated_answer_names_the_bearer_scheme(api_client):
    response = api_client.get("/api/v1/reports")

    assert_reports_error(response, 401)
    assert response["WWW-Authenticate"] == "Bearer"


def test_answers_json_whatever_the_accept_header(owner_client):
    response = owner_client.get("/api/v1/reports", HTTP_ACCEPT="text/html")

    assert response.status_code == status.HTTP_200_OK
    assert response["Content-Type"] == "application/json"


def test_unknown_path_under_v1_is_not_found_in_the_api_shape(owner_client):
    response = owner_client.get("/api/v1/nothing-here")

    assert_reports_error(response, 404)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("put", "/api/v1/reports"),
        ("delete", "/api/v1/reports"),
        ("post", "/api/v1/reports/1"),
        ("get", "/api/v1/projects/example.com"),
        ("post", "/api/v1/projects"),
        ("put", "/api/v1/projects/example.com"),
    ],
)
def test_unsupported_methods_are_405_in_the_api_shape(owner_client, user, method, path):
    ReportFactory(owner=user, id=1)

    response = getattr(owner_client, method)(path)

    assert_reports_error(response, 405, f'Method "{method.upper()}" not allowed.')


def test_malformed_json_is_a_400_in_the_api_shape(owner_client):
    response = owner_client.post("/api/v1/reports", data='{"url": "https://x', content_type="application/json")

    assert_reports_error(response, 400, StartsWith("The request body could not be read: JSON parse error"))


def test_unsupported_content_type_is_a_415_in_the_api_shape(owner_client):
    response = owner_client.post("/api/v1/reports", data="url=https://x", content_type="text/plain")

    assert_reports_error(response, 415, 'Unsupported media type "text/plain" in request.')


def test_oversize_body_is_a_400_in_the_api_shape(owner_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000

    response = owner_client.post("/api/v1/reports", data={"url": "https://example.com/" + "a" * 5000})

    assert_reports_error(response, 400)


def test_json_body_over_the_limit_is_a_413_in_the_api_shape_and_nothing_is_stored(owner_client, settings):
    settings.REPORTS_MAX_REQUEST_BYTES = 2048
    body = json.dumps({"url": "https://example.com/", "password": "p" * 4096})

    response = owner_client.post("/api/v1/reports", data=body, content_type="application/json")

    assert_reports_error(response, 413, "The request body is too large: the limit is 2048 bytes.")
    assert not Report.objects.exists()


def test_unauthenticated_request_is_checked_before_its_body(api_client):
    response = api_client.post("/api/v1/reports", data="{not json", content_type="application/json")

    assert_reports_error(response, 401)
    assert not Report.objects.exists()


def test_client_without_accept_header_still_gets_json(user):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {ApiKey.issue(user=user)[1]}")

    response = client.get("/api/v1/reports")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["data"] == []


@pytest.mark.parametrize(
    ("path", "key"),
    [
        ("/api/v1/reports?search=a%00b", "url"),
        ("/api/v1/reports?project=a%00b", "url"),
        ("/api/v1/projects?search=a%00b", "project"),
    ],
)
def test_null_characters_in_list_parameters_fall_back_to_the_unfiltered_list(owner_client, user, path, key):
    # A value no URL or host can hold is an invalid filter, and invalid filters are dropped
    # (reports/filters.py), as the reference product drops values it does not know.
    ReportFactory(owner=user, project__name="shop.example", url="https://shop.example/")

    response = owner_client.get(path)

    assert response.status_code == status.HTTP_200_OK
    assert [item[key] for item in response.json()["data"]] == [
        "https://shop.example/" if key == "url" else "shop.example"
    ]


def test_null_character_in_a_project_name_is_not_found_and_deletes_nothing(owner_client, user):
    ReportFactory(owner=user, project__name="shop.example", url="https://shop.example/")

    response = owner_client.delete("/api/v1/projects/a%00b")

    assert_reports_error(response, 404)
    assert list(Project.objects.values_list("name", flat=True)) == ["shop.example"]
