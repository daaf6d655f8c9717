"""What one batch of the visit writer costs the database, statement by statement.

The redirect never waits for the database, but every new visit is written by its process's
flusher (shortener/fastpath/visits.py), and on the bench's two cores that write shares the CPU
with the redirects: its size is what shows in the redirect's tail. This seeds a fresh database
with 10,000 links, then writes batches of 5,000 new visits over them (50 visitors' details, as
`make bench` visits), each as the flusher does, and prints each statement's median time and the
rest of the batch (the commit, where the deferred foreign key checks run, and the writer's
Python between statements), and the flusher thread's own CPU time (time it holds the GIL that
its process's request threads need).

    .venv/bin/python bench/visit_batch.py [--database-url postgres://…/db] [--batches 12] [--visits 5000]
"""

import argparse
import datetime
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import django_on_fresh_database

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/webtools_bench_batch"
LINKS = 10_000
VISITORS = 50
STATEMENTS = {  # what each statement of the writer starts with
    "INSERT INTO shortener_visit ": "Visit rows",
    "INSERT INTO shortener_visitbreakdown ": "breakdowns",
    "SELECT id FROM shortener_shortlink": "links locked",
    "UPDATE shortener_shortlink ": "links' counters",
    "INSERT INTO shortener_dailyvisits ": "per-link days",
    "INSERT INTO shortener_sitedailyvisits ": "site's day",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--batches", type=int, default=12)
    parser.add_argument("--visits", type=int, default=5000)
    args = parser.parse_args()

    django_on_fresh_database(args.database_url)
    from django.db import connection

    from shortener.fastpath.visits import write_visits
    from shortener.models import ShortLink

    ShortLink.objects.bulk_create(
        ShortLink(code=f"b{n}", url=f"https://example.com/{n}", url_digest=f"{n:064x}") for n in range(LINKS)
    )
    link_ids = list(ShortLink.objects.values_list("pk", flat=True))
    user_agents = [
        f"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{100 + n}.0 Safari/537.36"
        for n in range(VISITORS)
    ]
    visitor_details = [
        (user_agents[n], f"https://site{n % 7}.example/", ("FR", "DE", "US")[n % 3]) for n in range(VISITORS)
    ]

    times: dict[str, list[float]] = defaultdict(list)  # per statement, its time in each batch
    in_batch: dict[str, float] = defaultdict(float)  # SQLite's writer sends a statement per 500 rows

    def timed(execute, sql, params, many, context):
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            label = next((name for prefix, name in STATEMENTS.items() if sql.startswith(prefix)), "other")
            in_batch[label] += time.perf_counter() - start

    rng = random.Random(2111)
    day = datetime.date.today()
    totals, commits, flusher_cpu = [], [], []
    with connection.execute_wrapper(timed):
        for batch in range(args.batches):
            details = {}
            for n in range(args.visits):
                visitor = rng.randrange(VISITORS)
                details[rng.choice(link_ids), f"{batch}-{n}-{visitor}", day] = visitor_details[visitor]
            in_batch.clear()
            start, cpu_start = time.perf_counter(), time.thread_time()
            counted = write_visits(list(details), wait_for_wal=True, details=details)
            totals.append(time.perf_counter() - start)
            # The flusher's own CPU time: it holds the GIL the process's request threads need.
            flusher_cpu.append(time.thread_time() - cpu_start)
            assert counted == len(details), (counted, len(details))
            for label, spent in in_batch.items():
                times[label].append(spent)
            commits.append(totals[-1] - sum(in_batch.values()))

    def ms(samples: list[float]) -> str:
        return f"{statistics.median(samples) * 1000:8.1f}"

    print(f"{args.batches} batches of {args.visits} new visits over {LINKS} links, {connection.vendor}")
    print(f"{'statement':<36}{'median ms':>10}")
    for label in (*STATEMENTS.values(), "other"):
        if times.get(label):
            print(f"{label:<36}{ms(times[label]):>10}")
    print(f"{'commit, and Python between statements':<36}{ms(commits):>10}")
    print(f"{'whole batch':<36}{ms(totals):>10}")
    print(f"{'of which the flusher thread on CPU':<36}{ms(flusher_cpu):>10}")


if __name__ == "__main__":
    main()
