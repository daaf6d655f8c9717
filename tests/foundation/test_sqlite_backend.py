"""common.sqlite_backend: SQLite's write lock waited for in short turns, within the database's timeout.

Two Django connections to one SQLite file, as two request threads or processes have: while one
holds the write lock (an atomic block, BEGIN IMMEDIATE), the other's write waits for it and
then goes through, however long past SQLite's own 10 ms slice; after the configured timeout it
is refused as before ("database is locked"), and nothing it tried was written.
"""

import sqlite3
import threading

import pytest
from django.db import OperationalError

from common.env import env_database
from common.sqlite_backend.base import BUSY_SLICE_MS, DatabaseWrapper
from tests.polling import eventually


def connection_to(path, *, timeout: float = 20) -> DatabaseWrapper:
    settings = env_database("UNUSED_DATABASE_URL", f"sqlite:///{path}")
    settings["OPTIONS"]["timeout"] = timeout
    settings.update({"TIME_ZONE": None, "ATOMIC_REQUESTS": False, "AUTOCOMMIT": True, "CONN_MAX_AGE": 0})
    settings.setdefault("CONN_HEALTH_CHECKS", False)
    settings.setdefault("TEST", {})
    connection = DatabaseWrapper(settings, alias="other")
    # Opened before the lock is taken: its PRAGMA journal_mode=WAL does not wait (SQLite's own rule).
    connection.ensure_connection()
    connection.inc_thread_sharing()  # used by the writer thread below
    return connection


@pytest.fixture(autouse=True)
def _own_connections(django_db_blocker):
    # These connections are the test's own, to its own file: not the test database.
    with django_db_blocker.unblock():
        yield


@pytest.fixture
def database(tmp_path):
    path = tmp_path / "locks.sqlite3"
    with sqlite3.connect(path) as setup:
        setup.execute("PRAGMA journal_mode=WAL")
        setup.execute("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
        setup.execute("INSERT INTO counter VALUES (1, 0)")
    return path


def count(path) -> int:
    with sqlite3.connect(path) as reader:
        return reader.execute("SELECT n FROM counter WHERE id = 1").fetchone()[0]


def hold_write_lock(path, release: threading.Event, held: threading.Event) -> threading.Thread:
    def hold() -> None:
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        held.set()
        release.wait(30)
        holder.execute("ROLLBACK")
        holder.close()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    assert held.wait(10)
    return thread


def test_the_settings_use_it_for_sqlite(tmp_path):
    config = env_database("UNUSED_DATABASE_URL", f"sqlite:///{tmp_path / 'db.sqlite3'}")
    assert config["ENGINE"] == "common.sqlite_backend"
    assert config["OPTIONS"]["timeout"] == 20


@pytest.mark.parametrize("statement", ["UPDATE counter SET n = n + 1 WHERE id = 1", "transaction"])
def test_a_write_waits_for_the_lock_longer_than_one_slice_and_then_goes_through(database, statement):
    waiting = connection_to(database)
    release, held = threading.Event(), threading.Event()
    holder = hold_write_lock(database, release, held)
    done = threading.Event()
    errors = []

    def write() -> None:
        try:
            with waiting.cursor() as cursor:
                if statement == "transaction":  # what an atomic block sends (transaction_mode IMMEDIATE)
                    cursor.execute("BEGIN IMMEDIATE")
                    cursor.execute("UPDATE counter SET n = n + 1 WHERE id = 1")
                    cursor.execute("COMMIT")
                else:
                    cursor.execute(statement)
        except Exception as exc:  # reported below
            errors.append(exc)
        finally:
            done.set()

    writer = threading.Thread(target=write)
    writer.start()
    # Still waiting after many of SQLite's slices: the lock is taken, and it was not refused.
    assert not done.wait(BUSY_SLICE_MS * 30 / 1000), errors
    release.set()
    eventually(done.is_set, timeout=10, message="the write never went through once the lock was free")
    writer.join()
    holder.join()
    waiting.close()
    assert errors == []
    assert count(database) == 1


def test_a_write_is_refused_once_the_timeout_has_passed(database):
    waiting = connection_to(database, timeout=0.3)
    release, held = threading.Event(), threading.Event()
    holder = hold_write_lock(database, release, held)
    try:
        with pytest.raises(OperationalError, match="locked"), waiting.cursor() as cursor:
            cursor.execute("UPDATE counter SET n = n + 1 WHERE id = 1")
    finally:
        release.set()
        holder.join()
        waiting.close()
    assert count(database) == 0
