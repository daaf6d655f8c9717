"""Interface A's limits hold across the processes of a real server without Redis (issue 49, item 5).

One server of two workers, no REDIS_URL, as `make run` on one machine. The limits were counted
in each worker's memory: an audit page's password took 10 wrong tries instead of 5, and an API
key twice its rate. PostgreSQL only (several processes on one database).
"""

import httpx
import pytest
from django.db import connection

from reports.models import ApiKey, Audit
from tests.reports.audits.factories import done_audit
from tests.reports.factories import ReportFactory
from tests.servers import Server, served_database_url, served_password, server_env

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

LIMIT = 5
TRIES = 3 * LIMIT


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker):
    env = server_env(
        served_database_url(connection),
        REPORTS_PAGE_PASSWORD_ATTEMPTS=str(LIMIT),
        REPORTS_RATE_LIMIT=str(LIMIT),
    )
    server = Server(env, workers=2)
    yield server
    server.stop()


def wrong_tries(server: Server, path: str) -> list[int]:
    with httpx.Client(base_url=server.url, timeout=10) as client:
        client.get(path)  # the CSRF cookie
        token = client.cookies["csrftoken"]
        # New connections each time, so that both workers take turns answering.
        return [
            client.post(
                path, data={"password": "guess", "csrfmiddlewaretoken": token}, headers={"Connection": "close"}
            ).status_code
            for _ in range(TRIES)
        ]


def test_a_report_page_takes_as_many_wrong_passwords_as_the_limit_whatever_worker_answers(server, user):
    report = ReportFactory(owner=user, page_password="open sesame", password=served_password("open sesame"))

    assert wrong_tries(server, f"/reports/{report.pk}") == [200] * LIMIT + [429] * (TRIES - LIMIT)


def test_an_audit_page_takes_as_many_wrong_passwords_as_the_limit_whatever_worker_answers(server, user):
    audit = done_audit(user, privacy=Audit.Privacy.PASSWORD, password=served_password("open sesame"))

    assert wrong_tries(server, f"/audits/{audit.pk}") == [200] * LIMIT + [429] * (TRIES - LIMIT)


def test_an_api_key_gets_its_rate_whatever_worker_answers(server, user):
    _, raw_key = ApiKey.issue(user=user)
    headers = {"Authorization": f"Bearer {raw_key}", "Connection": "close"}

    with httpx.Client(base_url=server.url, timeout=10) as client:
        statuses = [client.get("/api/v1/reports", headers=headers).status_code for _ in range(TRIES)]

    assert statuses == [200] * LIMIT + [429] * (TRIES - LIMIT)
