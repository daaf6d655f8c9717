"""The memory and time of one account's export (/accounts/export/, accounts/export.py) at 10³ and 10⁵ items.

Seeds a fresh database with one user owning N pastes, N short links (each with a day of visits)
and N reports (over N/100 projects, with N/1000 audits), then reads the export's whole stream as
the response would send it, twice: once under tracemalloc for the peak of Python's allocations
while streaming, once without it for the time. The process's peak RSS is printed as well
(it includes the seeding). Flat memory means the peak stays about the same from 10³ to 10⁵.

    .venv/bin/python bench/account_export.py [--database-url postgres://…/db] [--items 1000 100000]

28 Nov 2026, on PostgreSQL 17 of a 2-core machine shared with other test runs (so the time is
an upper bound), commit 6f9e2b9's export:

| items of each kind | export | time | streaming peak (tracemalloc) | peak RSS |
|---|---|---|---|---|
| 1,000 | 1.3 MB | 0.60 s | 1.3 MB | 104 MB |
| 100,000 | 134.5 MB | 43.37 s | 3.6 MB | 110 MB |

100 times the items, 100 times the file: the memory stays within a few MB (a cursor's chunk of
2,000 rows of each kind, and one 64 KB piece of output).
"""

import argparse
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import django_on_fresh_database

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/webtools_bench_export"
BATCH = 5000


def seed(user, start: int, stop: int) -> None:
    """Items start..stop-1 of every kind for `user`."""
    import datetime

    from django.utils import timezone

    from pastes.models import Paste
    from reports.models import Audit, Project, Report
    from shortener.models import DailyVisits, ShortLink

    projects = {}
    now = timezone.now()
    for first in range(start, stop, BATCH):
        numbers = range(first, min(first + BATCH, stop))
        Paste.objects.bulk_create(
            Paste(owner=user, id=f"p{n:011d}", name=f"paste {n}", content=f"print({n})\n" * 20) for n in numbers
        )
        links = ShortLink.objects.bulk_create(
            ShortLink(owner=user, code=f"e{n}", url=f"https://example.com/{n}", url_digest=f"{n:064x}", counter=n % 50)
            for n in numbers
        )
        DailyVisits.objects.bulk_create(
            DailyVisits(link=link, day=datetime.date(2026, 11, 1), visits=link.counter) for link in links
        )
        for n in numbers:
            if n // 100 not in projects:
                projects[n // 100] = Project.objects.get_or_create(owner=user, name=f"site{n // 100}.example")[0]
        Report.objects.bulk_create(
            Report(
                owner=user,
                project=projects[n // 100],
                url=f"https://site{n // 100}.example/page-{n}",
                status=Report.Status.DONE,
                score=80,
                result="good",
                results={"seo": {"title": {"passed": True, "importance": "high"}}},
                generated_at=now,
            )
            for n in numbers
        )
        Audit.objects.bulk_create(
            Audit(owner=user, project=projects[n // 100], url=f"https://site{n // 100}.example/", max_pages=5)
            for n in numbers
            if n % 1000 == 0
        )


def export_once(user) -> int:
    from accounts.export import stream

    return sum(len(piece) for piece in stream(user))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--items", type=int, nargs="+", default=[1000, 100_000])
    args = parser.parse_args()

    django_on_fresh_database(args.database_url)
    from django.contrib.auth import get_user_model
    from django.db import reset_queries

    user = get_user_model().objects.create_user(username="exporter", password="unused-password")
    print("| items of each kind | export | time | streaming peak (tracemalloc) | peak RSS |")
    print("|---|---|---|---|---|")
    seeded = 0
    for items in sorted(args.items):
        seed(user, seeded, items)
        seeded = items
        reset_queries()
        tracemalloc.start()
        size = export_once(user)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        started = time.perf_counter()
        export_once(user)
        elapsed = time.perf_counter() - started
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"| {items:,} | {size / 1e6:.1f} MB | {elapsed:.2f} s | {peak / 1e6:.1f} MB | {rss:.0f} MB |")


if __name__ == "__main__":
    main()
