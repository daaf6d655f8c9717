"""Clients of interface A's API, each carrying a reports key."""

import pytest
from rest_framework.test import APIClient

from reports.models import ApiKey


def _client_with_key(user) -> APIClient:
    _, raw_key = ApiKey.issue(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}", HTTP_ACCEPT="application/json")
    client.raw_key = raw_key
    return client


@pytest.fixture
def owner_client(user) -> APIClient:
    """alice's client."""
    return _client_with_key(user)


@pytest.fixture
def other_client(other_user) -> APIClient:
    """bob's client."""
    return _client_with_key(other_user)
