"""The PostgreSQL health check: a connection the server ended is replaced, a healthy one costs no statement."""

import select

import psycopg
import pytest
from django.db import close_old_connections, connection
from django.db.backends.postgresql import base as django_postgresql

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's backend"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def round_trip_checks(monkeypatch):
    """Each time Django's own check (a `SELECT 1` to the server) runs, with its answer."""
    checks = []
    django_check = django_postgresql.DatabaseWrapper.is_usable

    def recorded(self):
        checks.append(django_check(self))
        return checks[-1]

    monkeypatch.setattr(django_postgresql.DatabaseWrapper, "is_usable", recorded)
    return checks


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def next_request() -> None:
    """What Django does when a request starts (request_started), which the test client skips."""
    close_old_connections()


def test_the_connections_are_health_checked():
    assert connection.settings_dict["CONN_HEALTH_CHECKS"] is True
    assert connection.settings_dict["CONN_MAX_AGE"] > 0


def test_a_healthy_connection_is_kept_without_a_round_trip(round_trip_checks):
    first = backend_pid()

    next_request()
    second = backend_pid()

    assert second == first
    assert round_trip_checks == []


def test_a_connection_the_server_ended_is_replaced_before_the_request_queries(round_trip_checks):
    ended = backend_pid()
    settings = connection.settings_dict
    with psycopg.connect(
        host=settings["HOST"], port=settings["PORT"] or 5432, user=settings["USER"], dbname=settings["NAME"]
    ) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [ended])
    # The server's farewell reaches the socket soon after; the request may come at any time after.
    readable, _, _ = select.select([connection.connection.fileno()], [], [], 5)
    assert readable

    next_request()
    replacement = backend_pid()

    assert replacement != ended
    assert round_trip_checks == [False]
