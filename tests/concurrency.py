"""Run code in parallel threads, each with its own database connection, to prove races are handled."""

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from django.db import connections


def run_concurrently[T](func: Callable[[], T], *, times: int) -> list[T | BaseException]:
    """Call `func` from `times` threads released together; return each result or exception."""
    barrier = threading.Barrier(times)

    def worker() -> T | BaseException:
        try:
            barrier.wait()
            return func()
        except BaseException as exc:  # the caller asserts on it
            return exc
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=times) as pool:
        return list(pool.map(lambda _: worker(), range(times)))
