"""What would it cost to make a visit durable before the redirect leaves? (issue 11, item 4)

Today a new visit goes into the worker's memory and is written every 0.5 s, so a killed
worker loses what it had buffered. Keeping it elsewhere first costs one round trip per new
visit; this measures that round trip, one thread, against the in-memory buffer:

- memory: VisitBuffer.add (today);
- Redis RPUSH: the visit in a Redis list, drained by the flushers (durable against a killed
  worker; against a Redis crash only as far as Redis persists);
- PostgreSQL: the visit written during the request (SHORTENER_VISIT_FLUSH_SECONDS=0),
  with synchronous_commit off as that path does.

    REDIS_URL=redis://127.0.0.1:6379/7 DATABASE_URL=postgres://… python bench/visit_durability.py [--n 5000]
"""

import argparse
import datetime
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("SECRET_KEY", "benchmark-only-secret-key-0123456789abcdefghijklmnopqrstuvwxyz")

import django

django.setup()

import redis  # noqa: E402
from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402

from shortener.models import ShortLink  # noqa: E402
from shortener.services.visits import VisitBuffer, _write_live  # noqa: E402


def timed(label: str, func, n: int) -> tuple[str, float, float]:
    samples = []
    for i in range(n):
        start = time.perf_counter_ns()
        func(i)
        samples.append((time.perf_counter_ns() - start) / 1000)
    samples.sort()
    return label, statistics.median(samples), samples[int(len(samples) * 0.99)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=5000)
    args = parser.parse_args()
    day = datetime.date.today()
    rows = []

    memory = VisitBuffer()
    memory.start_flusher = lambda: None  # measure the append alone
    rows.append(timed("memory buffer (today)", lambda i: memory.add((1, f"m{i}", day)), args.n))

    if settings.REDIS_URL:
        client = redis.Redis.from_url(settings.REDIS_URL)
        key = "bench:visit-durability"
        client.delete(key)
        rows.append(timed("Redis RPUSH", lambda i: client.rpush(key, f"1:r{i}:{day}"), args.n))
        client.delete(key)

    if connection.vendor == "postgresql":
        link = ShortLink.objects.create(code="benchdur", url="https://example.com/")
        try:
            rows.append(
                timed(
                    "PostgreSQL, in the request",
                    lambda i: _write_live([(link.pk, f"p{i}", day)], wait_for_wal=False),
                    args.n,
                )
            )
        finally:
            link.delete()

    print(f"{'per new visit, one thread':<30} {'p50 µs':>8} {'p99 µs':>8}")
    for label, p50, p99 in rows:
        print(f"{label:<30} {p50:>8.1f} {p99:>8.1f}")


if __name__ == "__main__":
    main()
