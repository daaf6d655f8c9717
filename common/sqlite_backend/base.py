"""Django's SQLite backend, waiting for SQLite's one write lock in short turns.

SQLite lets one connection write at a time; the others wait in its busy handler, which sleeps
1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50 and then 100 ms between tries. Under a steady stream
of small writes (every paste read counts its view; a link with max_visits counts its visit;
the visit buffer's flush; the analysis worker's leases and results) a writer that missed the
lock twice sleeps 5-100 ms at a time while the lock is free again within a millisecond, and
the unlucky ones lose turn after turn: paste reads on SQLite had a p99 of 1.0-1.2 s beside the
analysis worker, and 150-270 ms without it, with single UPDATEs waiting ~115 ms on average
(bench/README.md, "SQLite under analysis load").

Here SQLite's own handler waits at most BUSY_SLICE_MS (its 1, 2, 5 ms steps, without the GIL),
and a statement that still finds the lock taken is tried again at once, until the database's
`timeout` (20 s) has passed: a waiter notices a free lock within a few milliseconds. Only
statements that start outside a transaction are retried (an autocommit write, or the BEGIN
IMMEDIATE of an atomic block): a statement refused with SQLITE_BUSY has done nothing, so
trying it again is safe. Inside a transaction the lock is already held (BEGIN IMMEDIATE), so
nothing there waits for it.
"""

import sqlite3
import time

from django.db.backends.sqlite3 import base

BUSY_SLICE_MS = 10


def is_busy(exc: sqlite3.OperationalError) -> bool:
    return (getattr(exc, "sqlite_errorcode", 0) & 0xFF) == sqlite3.SQLITE_BUSY


class SQLiteCursorWrapper(base.SQLiteCursorWrapper):
    patience: float = 20.0  # seconds: the database's `timeout` (set per connection below)

    def execute(self, query, params=None):
        return self._retry(super().execute, query, params)

    def executemany(self, query, param_list):
        return self._retry(super().executemany, query, param_list)

    def _retry(self, run, query, params):
        if self.connection.in_transaction:
            return run(query, params)
        deadline = None
        while True:
            tried = time.monotonic()
            try:
                return run(query, params)
            except sqlite3.OperationalError as exc:
                if not is_busy(exc):
                    raise
                now = time.monotonic()
                if deadline is None:
                    deadline = tried + self.patience
                if now >= deadline or hasattr(params, "__next__"):
                    raise  # waited long enough, or a generator of parameters cannot be replayed
                if now - tried < 0.001:
                    # Refused without waiting (SQLite skips its handler in a few cases): do not spin.
                    time.sleep(0.001)


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        # The PRAGMAs of init_command ran with the full timeout; from now on SQLite waits in slices.
        connection.execute(f"PRAGMA busy_timeout = {BUSY_SLICE_MS}")
        self._patience = float(conn_params.get("timeout", 5.0))
        return connection

    def create_cursor(self, name=None):
        cursor = self.connection.cursor(factory=SQLiteCursorWrapper)
        cursor.patience = self._patience
        return cursor
