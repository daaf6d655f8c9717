"""What would it cost to make a visit durable before the redirect leaves? (issue 11, item 4)

Today a new visit goes into the worker's memory and is written every 0.5 s, so a killed
worker loses what it had buffered. Keeping it elsewhere first costs one round trip per new
visit; this measures that round trip, one thread, against the in-memory buffer:

- memory: VisitBuffer.add (today, shortener/fastpath/visits.py);
- Redis RPUSH: the visit in a Redis list, drained by the flushers (durable against a killed
  worker; against a Redis crash only as far as Redis persists);
- PostgreSQL: the visit written during the request (SHORTENER_VISIT_FLUSH_SECONDS=0),
  with synchronous_commit off as that path does.

On a database of its own, dropped and migrated afresh each run:

    .venv/bin/python bench/visit_durability.py [--database-url postgres://…/db] \\
        [--redis-url redis://127.0.0.1:6379/7] [--n 5000]
"""

import argparse
import datetime
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import django_on_fresh_database

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/webtools_bench_durability"


def timed(label: str, func, n: int) -> tuple[str, float, float]:
    samples = []
    for i in range(n):
        start = time.perf_counter_ns()
        func(i)
        samples.append((time.perf_counter_ns() - start) / 1000)
    samples.sort()
    return label, statistics.median(samples), samples[int(len(samples) * 0.99)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--redis-url", default="", help="a Redis database the run may write to (else no Redis row)")
    parser.add_argument("--n", type=int, default=5000)
    args = parser.parse_args()

    django_on_fresh_database(args.database_url)
    import redis
    from django.db import connection

    from shortener.fastpath.visits import VisitBuffer, write_visits
    from shortener.models import ShortLink

    day = datetime.date.today()
    rows = []

    memory = VisitBuffer()
    memory.background = False  # no flusher thread: the append alone
    rows.append(timed("memory buffer (today)", lambda i: memory.add((1, f"m{i}", day)), args.n))

    if args.redis_url:
        client = redis.Redis.from_url(args.redis_url)
        key = "bench:visit-durability"
        client.delete(key)
        rows.append(timed("Redis RPUSH", lambda i: client.rpush(key, f"1:r{i}:{day}"), args.n))
        client.delete(key)

    link = ShortLink.objects.create(code="benchdur", url="https://example.com/")
    label = "PostgreSQL, in the request" if connection.vendor == "postgresql" else "SQLite, in the request"
    rows.append(timed(label, lambda i: write_visits([(link.pk, f"p{i}", day)], wait_for_wal=False), args.n))
    link.refresh_from_db()
    if link.counter != args.n:
        sys.exit(f"{link.counter} visits counted of {args.n} written")

    print(f"{'per new visit, one thread':<30} {'p50 µs':>8} {'p99 µs':>8}")
    for label, p50, p99 in rows:
        print(f"{label:<30} {p50:>8.1f} {p99:>8.1f}")


if __name__ == "__main__":
    main()
