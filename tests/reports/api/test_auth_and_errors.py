import pytest
from rest_framework import status
from rest_framework.test import APIClient

from pastes.models import ApiKey as PastesApiKey
from reports.models import ApiKey
from tests.reports.factories import ReportFactory

pytestmark = pytest.mark.django_db

UNAUTHENTICATED = {"message": "Unauthenticated."}


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

    assert response.status_code == status.HTTP_401_UNAUTHORIZED
    assert response.json() == UNAUTHENTICATED


def test_bare_key_without_bearer_is_unauthenticated(api_client, raw_key):
    response = api_client.get("/api/v1/reports", HTTP_AUTHORIZATION=raw_key)

    assert response.status_code == status.HTTP_401_UNAUTHORIZED


def test_bearer_keyword_is_case_insensitive(api_client, raw_key):
    response = api_client.get("/api/v1/reports", HTTP_AUTHORIZATION=f"bearer {raw_key}")

    assert response.status_code == status.HTTP_200_OK


def test_revoked_key_is_unauthenticated(api_client, user, raw_key):
    ApiKey.objects.get(user=user).revoke()

    response = api_client.get("/api/v1/reports", HTTP_AUTHORIZATION=f"Bearer {raw_key}")

    assert response.status_code == status.HTTP_401_UNAUTHORIZED
    assert response.json() == UNAUTHENTICATED


def test_key_of_a_deactivated_user_is_unauthenticated(api_client, user, raw_key):
    user.is_active = False
    user.save()

    response = api_client.get("/api/v1/reports", HTTP_AUTHORIZATION=f"Bearer {raw_key}")

    assert response.status_code == status.HTTP_401_UNAUTHORIZED


def test_pastes_key_does_not_open_the_reports_api(api_client, user):
    _, pastes_key = PastesApiKey.issue(user=user)

    response = api_client.get("/api/v1/reports", HTTP_AUTHORIZATION=f"Bearer {pastes_key}")

    assert response.status_code == status.HTTP_401_UNAUTHORIZED


def test_signed_in_session_without_a_key_is_unauthenticated(client, user):
    client.force_login(user)

    response = client.get("/api/v1/reports")

    assert response.status_code == status.HTTP_401_UNAUTHORIZED


def test_unauthenticated_answer_names_the_bearer_scheme(api_client):
    response = api_client.get("/api/v1/reports")

    assert response["WWW-Authenticate"] == "Bearer"


def test_answers_json_whatever_the_accept_header(owner_client):
    response = owner_client.get("/api/v1/reports", HTTP_ACCEPT="text/html")

    assert response.status_code == status.HTTP_200_OK
    assert response["Content-Type"] == "application/json"


def test_unknown_path_under_v1_is_not_found_in_the_api_shape(owner_client):
    response = owner_client.get("/api/v1/nothing-here")

    assert response.status_code == status.HTTP_404_NOT_FOUND
    assert response.json() == {"message": "Resource not found.", "status": 404}


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

    assert response.status_code == status.HTTP_405_METHOD_NOT_ALLOWED
    assert response.json()["status"] == 405
    assert method.upper() in response.json()["message"]


def test_malformed_json_is_a_400_in_the_api_shape(owner_client):
    response = owner_client.post("/api/v1/reports", data='{"url": "https://x', content_type="application/json")

    assert response.status_code == status.HTTP_400_BAD_REQUEST
    assert response.json()["status"] == 400
    assert response.json()["message"].startswith("The request body could not be read")


def test_unsupported_content_type_is_a_415_in_the_api_shape(owner_client):
    response = owner_client.post("/api/v1/reports", data="url=https://x", content_type="text/plain")

    assert response.status_code == status.HTTP_415_UNSUPPORTED_MEDIA_TYPE
    assert response.json()["status"] == 415


def test_oversize_body_is_a_400_in_the_api_shape(owner_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000

    response = owner_client.post("/api/v1/reports", data={"url": "https://example.com/" + "a" * 5000})

    assert response.status_code == status.HTTP_400_BAD_REQUEST
    assert response.json() == {"message": "Bad request.", "status": 400}


def test_unauthenticated_request_is_checked_before_its_body(api_client):
    response = api_client.post("/api/v1/reports", data="{not json", content_type="application/json")

    assert response.status_code == status.HTTP_401_UNAUTHORIZED


def test_client_without_accept_header_still_gets_json(user):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {ApiKey.issue(user=user)[1]}")

    response = client.get("/api/v1/reports")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["data"] == []


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/v1/reports?search=a%00b"),
        ("get", "/api/v1/reports?project=a%00b"),
        ("get", "/api/v1/projects?search=a%00b"),
        ("delete", "/api/v1/projects/a%00b"),
    ],
)
def test_null_characters_in_parameters_are_harmless(owner_client, method, path):
    response = getattr(owner_client, method)(path)

    assert response.status_code in (status.HTTP_200_OK, status.HTTP_404_NOT_FOUND)
