"""Parallel token requests, anonymous bursts and imports on PostgreSQL: limits and ownership hold."""

import json
import threading

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from shortener.fastpath import flush_visits
from shortener.models import ApiKey, ShortLink
from tests.concurrency import run_concurrently
from tests.shortener.factories import ShortLinkFactory, UserFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 10


def test_parallel_token_requests_never_pass_the_rate_limit(settings):
    settings.SHORTENER_TOKEN_RATE_LIMIT = 4
    _api_key, raw_key = ApiKey.issue(user=UserFactory())
    urls = iter([f"https://example.com/{n}" for n in range(THREADS)])

    def create() -> int:
        return Client().post("/s/a", {"lsturl": next(urls)}, HTTP_AUTHORIZATION=f"Bearer {raw_key}").status_code

    results = run_concurrently(create, times=THREADS)

    assert sorted(results) == [200] * 4 + [429] * (THREADS - 4)
    assert ShortLink.objects.count() == 4


def test_parallel_anonymous_burst_lets_only_the_allowed_number_through(settings):
    settings.SHORTENER_ALLOW_ANONYMOUS = True
    settings.SHORTENER_ANONYMOUS_BURST = 5
    settings.SHORTENER_ANONYMOUS_BURST_SECONDS = 3600
    urls = iter([f"https://example.com/{n}" for n in range(THREADS)])

    def create() -> int:
        return Client().post("/s/a", {"lsturl": next(urls), "_format": "json"}).status_code

    results = run_concurrently(create, times=THREADS)

    assert sorted(results) == [200] * 5 + [429] * (THREADS - 5)
    assert ShortLink.objects.count() == 5


def test_parallel_imports_claim_an_ownerless_code_once():
    ShortLinkFactory(code="anon1234", owner=None)
    users = iter(UserFactory.create_batch(THREADS))

    def claim() -> str:
        client = Client()
        client.force_login(next(users))
        upload = SimpleUploadedFile("lstu_export.json", json.dumps(["anon1234"]).encode())
        return client.post("/s/import", {"file": upload, "_format": "json"}).json()["lines"][0]["status"]

    results = run_concurrently(claim, times=THREADS)

    assert sorted(results) == ["claimed"] + ["refused"] * (THREADS - 1)
    assert ShortLink.objects.get(code="anon1234").owner is not None


def test_parallel_visitors_of_a_limited_link_get_exactly_max_visits_redirects():
    ShortLinkFactory(code="three", max_visits=3)
    addresses = iter([f"192.0.2.{n}" for n in range(1, THREADS + 1)])

    def visit() -> int:
        return Client().get("/s/three", REMOTE_ADDR=next(addresses), HTTP_USER_AGENT="Firefox").status_code

    results = run_concurrently(visit, times=THREADS)

    assert sorted(results) == [302] * 3 + [404] * (THREADS - 3)
    flush_visits()
    assert ShortLink.objects.get(code="three").counter == 3


def test_parallel_visitors_of_one_visit_links_get_exactly_one_redirect_each():
    for n in range(5):
        ShortLinkFactory(code=f"once{n}", max_visits=1)

        def visit(code: str = f"once{n}") -> int:
            # Distinct visitors: the same address, each thread another User-Agent.
            return Client().get(f"/s/{code}", HTTP_USER_AGENT=f"Firefox/{threading.get_ident()}").status_code

        results = run_concurrently(visit, times=8)

        assert sorted(results) == [302] + [404] * 7
        assert ShortLink.objects.get(code=f"once{n}").counter == 1  # counted without a flush
