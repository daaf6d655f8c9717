import pytest
from django.test import Client

from shortener import fastpath

ADMIN_PASSWORD = "toto"
JSON = {"_format": "json"}


@pytest.fixture
def alice_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def bob_client(other_user) -> Client:
    client = Client()
    client.force_login(other_user)
    return client


@pytest.fixture
def admin_password(settings) -> str:
    settings.SHORTENER_ADMINPWD = ADMIN_PASSWORD
    return ADMIN_PASSWORD


@pytest.fixture
def admin_mode_client(alice_client, admin_password) -> Client:
    """Alice's session, in admin mode."""
    response = alice_client.post("/s/stats", {"adminpwd": admin_password, "_format": "json"})
    assert response.json()["success"] is True
    return alice_client


@pytest.fixture(autouse=True)
def _fastpath_isolated():
    # Lookups and visits go through the fast path as in production, without its threads:
    # their own connections cannot see the test's transaction. Tests flush visits
    # (flush_visits) before reading counters; test_link_cache.py and test_visit_buffer.py
    # run the threads of instances of their own.
    with fastpath.isolated():
        yield
