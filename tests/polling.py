"""Waiting for a condition in a test: poll it against a generous deadline, never sleep a fixed time.

A fixed sleep is either too short on a loaded machine (a flaky test) or too long everywhere (a slow
one); a deadline only bounds how long a test may take to fail, so it is no speed target either.
"""

import time
from collections.abc import Callable


def eventually[T](
    check: Callable[[], T], *, timeout: float = 30, interval: float = 0.02, message: str | Callable[[], str] = ""
) -> T:
    """Call `check` until it returns something truthy and return that; fail after `timeout` seconds.

    `message` says what never happened; a callable is asked only on failure (a server's log).
    """
    deadline = time.monotonic() + timeout
    while not (result := check()):
        if time.monotonic() >= deadline:
            raise AssertionError((message() if callable(message) else message) or f"still false after {timeout} s")
        time.sleep(interval)
    return result
