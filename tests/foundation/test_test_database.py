"""The test database is emptied between tests even while a server's thread is writing to it, and
whoever still holds it when the session ends is named (tests/database_holders.py).

A visit flusher of a server that a test started may still be writing when the test ends; its
transaction and the teardown's TRUNCATE of every table can deadlock, and PostgreSQL then aborts
the TRUNCATE (tests/conftest.py retries it). Here a writer takes two tables in the opposite order.
"""

import os
import threading

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection

from tests.database_holders import holders
from tests.polling import eventually
from tests.servers import served_database_url

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_the_database_is_emptied_though_a_writer_deadlocks_with_the_emptying():
    get_user_model().objects.create(username="left-over")
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    # TRUNCATE locks its tables in the order flush names them, the same order in this process.
    first, last = (connection.ops.quote_name(table) for table in (tables[0], tables[-1]))
    url = served_database_url(connection)
    writer = psycopg.connect(url)
    writer.execute(f"LOCK TABLE {last} IN ROW EXCLUSIVE MODE")  # as an INSERT into it does
    committed = []

    def write_the_first_table_once_the_emptying_waits():
        with writer:
            eventually(lambda: someone_waits_for(url, last), message="the flush never waited for the writer")
            writer.execute(f"LOCK TABLE {first} IN ROW EXCLUSIVE MODE")
            committed.append(True)

    thread = threading.Thread(target=write_the_first_table_once_the_emptying_waits)
    thread.start()
    try:
        call_command("flush", interactive=False, verbosity=0)
    finally:
        thread.join(timeout=30)

    assert committed == [True]
    assert not get_user_model().objects.exists()


def someone_waits_for(url: str, table: str) -> bool:
    with psycopg.connect(url, autocommit=True) as other:
        return other.execute(
            "SELECT EXISTS (SELECT FROM pg_locks WHERE NOT granted AND relation = %s::regclass)", [table]
        ).fetchone()[0]


def test_a_connection_left_open_is_named_with_its_process_and_ended():
    left_open = psycopg.connect(served_database_url(connection), application_name="left-open-by-a-test")
    backend = left_open.info.backend_pid
    try:
        [holder] = [holder for holder in holders() if holder.pid == backend]

        described = holder.describe()
        assert "left-open-by-a-test" in described
        assert f"pid={os.getpid()}," in described  # ss names this process as the socket's owner
        holder.end()
        eventually(lambda: backend not in {other.pid for other in holders()}, message="the backend was not ended")
    finally:
        left_open.close()
