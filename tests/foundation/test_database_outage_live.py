"""A real server whose PostgreSQL connection is cut and restored (issue 11, item 3): 503s, then recovery.

The server reaches the test database through a proxy that the test cuts like a network failure.
"""

import time

import httpx
import pytest
from django.db import connection

from reports.models import ApiKey as ReportsApiKey
from tests.pastes.factories import PasteFactory
from tests.servers import CuttableProxy, Server, server_env

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_server_cut_off_from_postgresql_answers_503_and_recovers_without_a_restart(user):
    paste = PasteFactory(owner=user)
    _, key = ReportsApiKey.issue(user=user)
    params = connection.settings_dict
    proxy = CuttableProxy((params["HOST"], int(params["PORT"])))
    server = Server(
        server_env(f"postgres://{params['USER']}@127.0.0.1:{proxy.port}/{params['NAME']}"), workers=1, threads=2
    )
    reports = {"Authorization": f"Bearer {key}", "Accept": "application/json"}

    def answers() -> list[tuple[int, object]]:
        outcomes = [
            httpx.get(f"{server.url}/healthz"),
            httpx.get(f"{server.url}/api/v1/reports", headers=reports),
            httpx.get(f"{server.url}/pastes/paste/@{paste.pk}"),
            httpx.post(f"{server.url}/s/login", data={"login": "alice", "password": "x", "_format": "json"}),
        ]
        return [(response.status_code, response.headers.get("Retry-After")) for response in outcomes]

    try:
        before = answers()
        proxy.cut()
        during = answers()
        down_body = httpx.get(f"{server.url}/pastes/paste/@{paste.pk}").json()
        proxy.restore()
        deadline = time.monotonic() + 10
        while (after := answers()) != before and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        server.stop()
        proxy.cut()

    assert before == [(200, None), (200, None), (200, None), (401, None)]
    assert during == [(503, "5")] * 4
    assert down_body == {"code": 503, "message": down_body["message"]}
    assert after == before
