"""Django's PostgreSQL backend, with a health check that costs no round trip.

Connections persist (CONN_MAX_AGE) and are checked at each request's first query
(CONN_HEALTH_CHECKS), so that one the server ended while it sat idle (a restart, a failover,
pg_terminate_backend) is replaced instead of failing the request. Django checks by sending
`SELECT 1`: a round trip on every request, a fifth of `/healthz`'s time and a statement for
the server to run (bench/README.md, "Where the time went").

An idle connection receives nothing unless something happened to it: the server that ends a
session sends its reason and closes the socket, and the operating system reports the socket
readable. So the check asks the socket first, without waiting: nothing to read means the
connection is as it was left, and it is kept; anything to read (an ending, or a notice) is
left to Django's `SELECT 1`, which reads it and decides. What neither check sees is a peer
that vanished without a word (a cable pulled): Django's query would wait for TCP as the
request's own query does.
"""

import select

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        if self.connection is None or self.connection.closed:
            return False
        try:
            readable, _, failed = select.select([self.connection.fileno()], [], [], 0)
        except (OSError, ValueError):
            return False
        if readable or failed:
            return super().is_usable()
        return True
