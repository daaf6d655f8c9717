"""Dependency faults degrade, never 500 (issue 11, item 3).

Redis is a real redis-server that the tests stop; the database is made to refuse every new
cursor, as it does when PostgreSQL is down or the connection was cut.
"""

import logging

import pytest
import redis
from django.db import OperationalError
from django.db.backends.base.base import BaseDatabaseWrapper
from django.test import Client

from common import cache as degrading
from config import __version__
from reports.models import ApiKey as ReportsApiKey
from reports.models import Report
from shortener import messages
from tests.pastes.factories import PasteFactory, issue_key
from tests.reports.factories import ReportFactory
from tests.servers import RedisServer
from tests.shortener.asserts import any_number, assert_shortener_error

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def redis_server():
    server = RedisServer()
    yield server
    server.stop()


@pytest.fixture
def redis_cache(settings, redis_server, monkeypatch):
    """The service configured with a real Redis (as REDIS_URL does); stop the server to take it away."""
    monkeypatch.setattr(degrading, "outage", degrading.RedisOutage(degrading.outage.consequence))
    options = {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}
    redis = {"BACKEND": "common.cache.DegradingRedisCache", "LOCATION": redis_server.url, "OPTIONS": options}
    settings.CACHES = {
        "default": redis,
        "shortener": {**redis, "KEY_PREFIX": "shortener", "OPTIONS": {**options, "STAND_IN": "none"}},
        "reports": {**redis, "KEY_PREFIX": "reports-answers", "OPTIONS": {**options, "STAND_IN": "none"}},
    }
    return redis_server


@pytest.fixture
def reports_client(user) -> Client:
    _, key = ReportsApiKey.issue(user=user)
    return Client(HTTP_AUTHORIZATION=f"Bearer {key}", HTTP_ACCEPT="application/json")


@pytest.fixture
def pastes_client(user) -> Client:
    return Client(HTTP_AUTHORIZATION=issue_key(user))


def exercise_every_interface(reports_client, pastes_client, paste) -> list[int]:
    return [
        reports_client.get("/api/v1/reports").status_code,
        reports_client.get("/api/v1/projects").status_code,
        pastes_client.post(
            "/pastes/create", {"name": "ab", "content": "x"}, content_type="application/json"
        ).status_code,
        Client().get(f"/pastes/paste/@{paste.pk}").status_code,
        Client().post("/s/login", {"login": "alice", "password": "wrong", "_format": "json"}).status_code,
        Client().get("/healthz").status_code,
    ]


def test_redis_down_every_endpoint_answers_as_without_redis(redis_cache, reports_client, pastes_client, user, caplog):
    paste = PasteFactory(owner=user)
    assert exercise_every_interface(reports_client, pastes_client, paste) == [200, 200, 200, 200, 401, 200]

    redis_cache.stop()
    with caplog.at_level(logging.WARNING, logger="common.cache"):
        statuses = [exercise_every_interface(reports_client, pastes_client, paste) for _ in range(3)]

    assert statuses == [[200, 200, 200, 200, 401, 200]] * 3
    # One warning for the whole outage so far, not one per request.
    warnings = [record.message for record in caplog.records if record.name == "common.cache"]
    assert len(warnings) == 1
    assert warnings[0].startswith("Redis is unreachable")


def test_redis_down_the_reports_api_makes_its_answers_anew_and_follows_writes(redis_cache, reports_client, user):
    report = ReportFactory(owner=user, score=40)
    show = f"/api/v1/reports/{report.pk}"
    assert [reports_client.get(show).json()["data"]["score"] for _ in range(2)] == [40, 40]
    assert redis.Redis.from_url(redis_cache.url).keys("reports-answers:*")  # kept there

    redis_cache.stop()
    Report.objects.filter(pk=report.pk).update(score=60)

    assert [reports_client.get(show).json()["data"]["score"] for _ in range(2)] == [60, 60]


def test_redis_down_healthz_names_it(redis_cache):
    assert Client().get("/healthz").json() == {"status": "ok", "version": __version__}

    redis_cache.stop()
    response = Client().get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "degraded", "degraded": ["redis"], "version": __version__}


def test_redis_down_rate_limits_still_count_in_the_process(redis_cache, settings, user):
    settings.ACCOUNTS_SIGNIN_ACCOUNT_FAILURES = 2
    redis_cache.stop()

    responses = [
        Client().post("/s/login", {"login": "alice", "password": "wrong", "_format": "json"}) for _ in range(3)
    ]

    assert_shortener_error(responses[0], 401, messages.LOGIN_FAILED)
    assert_shortener_error(responses[1], 401, messages.LOGIN_FAILED)
    assert_shortener_error(responses[2], 429, any_number(messages.TOO_MANY_LOGINS))


def test_redis_back_is_used_again_without_a_restart(redis_cache, monkeypatch):
    monkeypatch.setattr(degrading, "RETRY_SECONDS", 0)
    redis_cache.stop()
    assert Client().get("/healthz").json()["status"] == "degraded"

    redis_cache.start()

    assert Client().get("/healthz").json() == {"status": "ok", "version": __version__}
    assert degrading.outage.since is None


@pytest.fixture
def database_down(monkeypatch):
    """Every new cursor fails as it does when the database cannot be reached."""

    def refuse(self):
        raise OperationalError('connection to server at "127.0.0.1", port 5432 failed: Connection refused')

    monkeypatch.setattr(BaseDatabaseWrapper, "ensure_connection", refuse)
    return monkeypatch


def unavailable(response) -> bool:
    return response.status_code == 503 and response["Retry-After"] == "5"


def test_database_down_reports_api_answers_503_in_its_shape(reports_client, database_down):
    reports_client.raise_request_exception = False

    response = reports_client.get("/api/v1/reports")

    assert unavailable(response)
    assert response.json() == {"message": response.json()["message"], "status": 503}


def test_database_down_pastes_answer_503_in_their_shape(user, database_down):
    client = Client(HTTP_AUTHORIZATION="pst_whatever", raise_request_exception=False)

    for response in (client.get("/pastes/paste/@abcdefghijkl"), client.post("/pastes/create", {}, "application/json")):
        assert unavailable(response)
        assert response.json()["code"] == 503


@pytest.mark.parametrize(
    ("request_kwargs", "json_expected"),
    [
        ({"path": "/s/login?_format=json", "data": {"login": "a", "password": "b"}}, True),
        ({"path": "/s/login", "data": {"login": "a", "password": "b", "_format": "json"}}, True),
        ({"path": "/s/login", "data": {"login": "a", "password": "b"}, "HTTP_ACCEPT": "application/json"}, True),
        ({"path": "/s/login", "data": '{"login": "a", "password": "b"}', "content_type": "application/json"}, True),
        ({"path": "/s/login", "data": {"login": "a", "password": "b"}}, False),
    ],
    ids=["query", "form body", "accept", "json body", "browser"],
)
def test_database_down_shortener_answers_503_as_the_client_asked(database_down, request_kwargs, json_expected):
    response = Client(raise_request_exception=False).post(**request_kwargs)

    assert unavailable(response)
    if json_expected:
        assert response.json() == {"success": False, "msg": "The service is temporarily unavailable. Please retry."}
    else:
        assert response["Content-Type"].startswith("text/html")


def test_database_down_healthz_is_503_and_recovers_without_a_restart(database_down):
    client = Client(raise_request_exception=False)

    down = client.get("/healthz")
    database_down.undo()
    up = client.get("/healthz")

    assert unavailable(down)
    assert down.json()["unavailable"] == ["database"]
    assert up.status_code == 200
    assert up.json() == {"status": "ok", "version": __version__}
