"""When a table of expiring rows (limit counters, failed sign-ins) deletes the rows nobody will use again.

Not at random (one request in a hundred), which made a request's queries a matter of chance: at
the first use of the table once each period of the process's own clock has passed, starting one
period after the process did. The table stays bounded without a cron job, and within a period a
request's queries are the same every time. The monotonic clock, not the wall clock: it never goes
back, and tests that move the date (time_machine) do not move it.
"""

import threading
import time
from datetime import timedelta


class Schedule:
    def __init__(self, every: timedelta) -> None:
        self.every = every.total_seconds()
        self.next_at = time.monotonic() + self.every
        self._lock = threading.Lock()

    def due(self) -> bool:
        """True once a period: the first call after the period's end, in one thread of the process."""
        now = time.monotonic()
        if now < self.next_at:
            return False
        with self._lock:
            if now < self.next_at:
                return False
            self.next_at = now + self.every
            return True

    def make_due(self) -> None:
        """The next call prunes (for tests, and for an operator's shell)."""
        self.next_at = 0.0
