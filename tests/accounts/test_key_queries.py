"""Scope and expiry cost a key-authenticated request no query (issue 44).

The key is still found by the one SELECT it always was, with the expiry in its WHERE and the scope read
from the row it loads; a read, expiring key's request makes as many queries as the same request with a
plain write key (what every key was before). Measured on the commit before scopes (bfd92b3) with plain
keys, these requests made the same counts as here: A 3, 2 and 8; B 3, 10 and 3; C 4, 3 and 6.
The first request of a key records last_used_at (one UPDATE a minute at most, as before), so each key
makes one request before the measured ones.
"""

from datetime import timedelta

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from pastes.models import ApiKey as PastesApiKey
from reports.models import ApiKey as ReportsApiKey
from shortener.models import ApiKey as ShortenerApiKey
from tests.pastes.factories import PasteFactory
from tests.reports.factories import ReportFactory
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

IN_A_MONTH = timedelta(days=30)


def scoped(model, user) -> str:
    """A read key that expires: both checks at work."""
    return model.issue(user=user, scope="read", expires_at=timezone.now() + IN_A_MONTH)[1]


def plain(model, user) -> str:
    """A key as every key was before scopes: it may write and never expires."""
    return model.issue(user=user)[1]


def measure(model, send, *args: object, **kwargs: object) -> list[dict]:
    """The queries of `send(*args, **kwargs)`, which must succeed; the only one on the key table is the lookup."""
    with CaptureQueriesContext(connection) as captured:
        response = send(*args, **kwargs)
    assert response.status_code < 400, response.content[:300]
    on_keys = [query["sql"] for query in captured if model._meta.db_table in query["sql"]]
    assert len(on_keys) == 1, on_keys
    assert on_keys[0].startswith("SELECT") and "expires_at" in on_keys[0].split("WHERE", 1)[1], on_keys[0]
    return captured.captured_queries


def test_interface_a(user):
    report = ReportFactory(owner=user)
    reader, writer = APIClient(), APIClient()
    reader.credentials(HTTP_AUTHORIZATION=f"Bearer {scoped(ReportsApiKey, user)}")
    writer.credentials(HTTP_AUTHORIZATION=f"Bearer {plain(ReportsApiKey, user)}")
    for client in (reader, writer):
        client.get("/api/v1/reports")

    for path in ("/api/v1/reports", f"/api/v1/reports/{report.pk}"):
        # Both made anew: the same owner's second read would be the kept answer (reports/answer_cache.py).
        caches["reports"].clear()
        read = measure(ReportsApiKey, reader.get, path)
        caches["reports"].clear()
        written = measure(ReportsApiKey, writer.get, path)
        assert len(read) == len(written), (read, written)
    measure(ReportsApiKey, writer.delete, f"/api/v1/reports/{report.pk}")


def test_interface_b(user):
    paste = PasteFactory(owner=user, exposure="private")
    reader, writer = APIClient(), APIClient()
    reader.credentials(HTTP_AUTHORIZATION=scoped(PastesApiKey, user))
    writer.credentials(HTTP_AUTHORIZATION=plain(PastesApiKey, user))
    for client in (reader, writer):
        client.get(f"/pastes/accounts/@{user.username}")

    path = f"/pastes/paste/@{paste.id}"
    read, written = measure(PastesApiKey, reader.get, path), measure(PastesApiKey, writer.get, path)
    assert len(read) == len(written), (read, written)
    measure(PastesApiKey, writer.post, "/pastes/create", {"name": "notes", "content": "hi"}, format="json")
    measure(PastesApiKey, writer.delete, f"/pastes/delete/{paste.id}")


def test_interface_c(user):
    ShortLinkFactory(code="mine", owner=user)
    reader = {"HTTP_AUTHORIZATION": f"Bearer {scoped(ShortenerApiKey, user)}"}
    writer = {"HTTP_AUTHORIZATION": f"Bearer {plain(ShortenerApiKey, user)}"}
    for headers in (reader, writer):
        Client().get("/s/stats", **headers)

    for path in ("/s/stats", "/s/edit/mine.json"):
        read, written = (
            measure(ShortenerApiKey, Client().get, path, **reader),
            measure(ShortenerApiKey, Client().get, path, **writer),
        )
        assert len(read) == len(written), (read, written)
    measure(ShortenerApiKey, Client().post, "/s/a", {"lsturl": "https://lstu.fr"}, **writer)
