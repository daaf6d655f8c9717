import pytest
from django.core.cache import caches
from django.test import Client

from shortener.services import visits
from shortener.services.links import local_links

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
def _clear_shortener_cache(settings, monkeypatch):
    # A background preload would read through its own connection, outside the test's
    # transaction; test_link_cache.py calls preload() itself.
    settings.SHORTENER_CACHE_PRELOAD = 0
    # Likewise the version watcher: tests call local_links.check_version() themselves.
    monkeypatch.setattr(local_links, "start", lambda: None)
    # Cached lookups and seen visitors must not leak from one test into the next.
    caches["shortener"].clear()
    local_links.clear()
    yield
    caches["shortener"].clear()
    local_links.clear()


@pytest.fixture(autouse=True)
def _visit_buffer(monkeypatch):
    # Visits are buffered as in production, and tests flush them (visits_flush) before
    # reading counters: a background flusher would write through its own connection,
    # outside the test's transaction. test_visit_buffer.py runs the real one.
    monkeypatch.setattr(visits.buffer, "start_flusher", lambda: None)
    visits.buffer.discard()
    visits.seen.clear()
    yield
    visits.buffer.discard()
    visits.seen.clear()
