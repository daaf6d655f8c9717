import pytest
from rest_framework.test import APIClient

from tests.pastes.attachment_fixtures import attachment_store, s3_endpoint  # noqa: F401 (fixtures)
from tests.pastes.factories import PasteFactory, issue_key


@pytest.fixture
def owner_key(user) -> str:
    return issue_key(user)


@pytest.fixture
def other_key(other_user) -> str:
    return issue_key(other_user)


@pytest.fixture
def owner_client(owner_key) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=owner_key)
    return client


@pytest.fixture
def other_client(other_key) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=other_key)
    return client


@pytest.fixture
def anon_client() -> APIClient:
    return APIClient()


@pytest.fixture
def clients(owner_client, other_client, anon_client) -> dict[str, APIClient]:
    return {"owner": owner_client, "other": other_client, "anonymous": anon_client}


@pytest.fixture
def paste(user):
    return PasteFactory(owner=user, name="hello", content="Hello, world!")
