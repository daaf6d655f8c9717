"""Who still holds the PostgreSQL test database when the session ends, named and let go.

PostgreSQL refuses to drop a database anyone is connected to, and pytest-django reports that as a
bare "database … is being accessed by other users" warning that names no one, leaving the
database behind for the next run. A thread or a server that a test started and never stopped is
the usual holder; the owning process is named from its socket, so the leak can be found.
"""

import subprocess
import time
import warnings
from dataclasses import dataclass

from django.db import connection


class DatabaseStillHeld(UserWarning):
    """A connection to the test database outlived the tests."""


@dataclass(frozen=True)
class Holder:
    pid: int  # the PostgreSQL backend's
    client_port: int | None
    application_name: str
    state: str | None
    query: str

    def describe(self) -> str:
        return (
            f"backend {self.pid} ({self.application_name or 'no application_name'}, {self.state}, "
            f"last query {self.query!r}) held by {owner_of_port(self.client_port)}"
        )

    def end(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [self.pid])


def holders() -> list[Holder]:
    """The other clients' connections to the database `connection` is connected to.

    PostgreSQL's own workers (autovacuum, a query's parallel workers) are left out: DROP DATABASE
    ends those itself.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, client_port, application_name, state, left(query, 160) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        )
        return [Holder(*row) for row in cursor.fetchall()]


def owner_of_port(port: int | None) -> str:
    """The local process owning a TCP client socket, as `ss` shows it (pid and name when root)."""
    if port is None:
        return "a Unix socket's client"
    try:
        shown = subprocess.run(
            ["ss", "-Htnp", f"sport = :{port}"], capture_output=True, text=True, timeout=5, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        shown = ""
    users = shown.partition("users:")[2].strip()
    return f"client port {port}, {users}" if users else f"client port {port}, owner unknown"


def release_test_database(*, patience: float = 5) -> None:
    """Wait a little for other connections to go, then warn about each one left and end it."""
    if connection.vendor != "postgresql":
        return
    deadline = time.monotonic() + patience
    while (left := holders()) and time.monotonic() < deadline:
        time.sleep(0.1)
    for holder in left:
        warnings.warn(f"the test database is still in use: {holder.describe()}", DatabaseStillHeld, stacklevel=1)
        holder.end()
