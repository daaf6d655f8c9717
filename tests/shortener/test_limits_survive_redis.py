"""Bans and login limits hold while Redis is down and after it restarts empty (issue 20, item 8).

A real server (two workers) and a real redis-server of the test's own, without persistence, which
the test stops and starts again. Before, the counters lived in Redis only: while it was down each
worker counted afresh in its memory (a banned address got 3 more admin-password tries per worker),
and a restart lifted every ban. PostgreSQL only (several processes on one database).
"""

import httpx
import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from shortener.models import ShortLink
from tests.servers import RedisServer, Server, served_database_url, served_password, server_env

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ADMIN_PASSWORD = "limits-admin-password"
LOGIN_LIMIT = 3
MAX_BAD_PASSWORDS = 3
BURST = 2
JSON = {"_format": "json"}


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, redis_server):
    env = server_env(
        served_database_url(connection),
        REDIS_URL=redis_server.url,
        SHORTENER_ADMINPWD=ADMIN_PASSWORD,
        ACCOUNTS_SIGNIN_ACCOUNT_FAILURES=str(LOGIN_LIMIT),
        SHORTENER_ADMIN_MAX_BAD_PASSWORDS=str(MAX_BAD_PASSWORDS),
        SHORTENER_ALLOW_ANONYMOUS="1",
        SHORTENER_ANONYMOUS_BURST=str(BURST),
        SHORTENER_ANONYMOUS_BURST_SECONDS="600",
    )
    server = Server(env, workers=2)
    yield server
    server.stop()


@pytest.fixture
def redis_up(redis_server):
    # Each test starts with Redis running and empty.
    if redis_server.process.poll() is not None:
        redis_server.start()
    yield redis_server
    if redis_server.process.poll() is not None:
        redis_server.start()


@pytest.fixture
def alice(db):
    return get_user_model().objects.create(username="alice", password=served_password("alice-password"))


def attempts(client: httpx.Client, url: str, data: dict, times: int) -> list[int]:
    # New connections each time, so that both workers take turns answering.
    return [client.post(url, data={**data, **JSON}, headers={"Connection": "close"}).status_code for _ in range(times)]


def outage_and_restart(redis_server: RedisServer, during, after) -> tuple[list[int], list[int]]:
    redis_server.stop()
    while_down = during()
    redis_server.start()  # empty: no persistence
    return while_down, after()


def test_an_admin_password_ban_holds_while_redis_is_down_and_after_it_restarts(server, redis_up, alice):
    with httpx.Client(timeout=10) as browser:
        assert browser.post(f"{server.url}/s/login", data={"login": "alice", "password": "alice-password", **JSON})
        stats = f"{server.url}/s/stats"
        wrong = attempts(browser, stats, {"adminpwd": "wrong"}, MAX_BAD_PASSWORDS)
        banned = attempts(browser, stats, {"adminpwd": ADMIN_PASSWORD}, 1)

        while_down, after_restart = outage_and_restart(
            redis_up,
            lambda: attempts(browser, stats, {"adminpwd": ADMIN_PASSWORD}, 6),
            lambda: attempts(browser, stats, {"adminpwd": ADMIN_PASSWORD}, 2),
        )

    assert wrong == [403] * MAX_BAD_PASSWORDS
    assert banned == [429]
    assert while_down == [429] * 6
    assert after_restart == [429, 429]


def test_the_login_limit_holds_while_redis_is_down_and_after_it_restarts(server, redis_up, alice):
    with httpx.Client(timeout=10) as client:
        login = f"{server.url}/s/login"
        wrong = {"login": "alice", "password": "wrong"}
        right = {"login": "alice", "password": "alice-password"}
        before = attempts(client, login, wrong, LOGIN_LIMIT + 1)

        while_down, after_restart = outage_and_restart(
            redis_up, lambda: attempts(client, login, right, 4), lambda: attempts(client, login, right, 2)
        )

    assert before == [401] * LOGIN_LIMIT + [429]
    assert while_down == [429] * 4
    assert after_restart == [429, 429]


def test_an_anonymous_shortening_ban_holds_while_redis_is_down_and_after_it_restarts(server, redis_up):
    with httpx.Client(timeout=10) as client:
        create = f"{server.url}/s/a"

        def shorten(times: int, start: int) -> list[int]:
            return [
                attempts(client, create, {"lsturl": f"https://example.com/{start + n}"}, 1)[0] for n in range(times)
            ]

        before = shorten(BURST + 1, 0)
        while_down, after_restart = outage_and_restart(redis_up, lambda: shorten(4, 100), lambda: shorten(2, 200))

    assert before == [200] * BURST + [429]
    assert while_down == [429] * 4
    assert after_restart == [429, 429]
    assert ShortLink.objects.count() == BURST
