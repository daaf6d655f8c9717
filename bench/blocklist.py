"""SHORTENER_BLOCKLIST_FILE at 10⁶ entries: what reading the list and checking a link's host cost.

Issue 46 asks that a link's creation be no slower than 1 ms with a million blocked domains. This
writes a hosts-file list of --entries domains (a third as `0.0.0.0 name` lines, as the common
lists ship), then measures on a throw-away SQLite database: the list's first read (and a re-read
after the file changes), the check of one host (listed, under a listed domain, not listed with
five labels), and a whole creation (clean_url + link_create, one INSERT each) without the list
and with it. It prints one table.

    .venv/bin/python bench/blocklist.py [--entries 1000000] [--creations 2000]
"""

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.harness import SECRET_KEY, setup_django

CHECKS = 100_000


def write_list(path: Path, entries: int) -> None:
    with path.open("w") as out:
        out.write("# a generated blocklist\n127.0.0.1 localhost\n")
        for number in range(entries):
            name = f"spam{number}.example{number % 97}.test"
            out.write(f"0.0.0.0 {name}\n" if number % 3 == 0 else f"{name}\n")


def per_call_us(function, argument: str, calls: int = CHECKS) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        function(argument)
    return (time.perf_counter() - started) / calls * 1e6


def creations_ms(count: int, prefix: str) -> float:
    from shortener.services.links import clean_url, link_create

    timings = []
    for number in range(count):
        started = time.perf_counter()
        link_create(owner_id=None, url=clean_url(f"https://www.site{number}.{prefix}.example/page"))
        timings.append(time.perf_counter() - started)
    return statistics.median(timings) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--creations", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="blocklist_") as directory:
        listed = Path(directory) / "blocked.txt"
        write_list(listed, args.entries)
        setup_django(
            DJANGO_SETTINGS_MODULE="config.settings",
            SECRET_KEY=SECRET_KEY,
            DATABASE_URL=f"sqlite:///{directory}/db.sqlite3",
            REDIS_URL="",
            SHORTENER_BLOCKLIST_FILE="",
        )
        from django.conf import settings
        from django.core.management import call_command

        from shortener.moderation.blocklist import blocklist

        call_command("migrate", verbosity=0)
        rows = [("entries in the list", f"{args.entries:,}"), ("file size (MB)", f"{listed.stat().st_size / 1e6:.1f}")]
        without = creations_ms(args.creations, "before")

        settings.SHORTENER_BLOCKLIST_FILE = str(listed)
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.perf_counter()
        domains = blocklist.domains()
        rows.append(("first read (s)", f"{time.perf_counter() - started:.2f}"))
        rows.append(("domains read", f"{len(domains):,}"))
        rows.append(
            (
                "memory of the set (MB, max RSS growth)",
                f"{(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024:.0f}",
            )
        )
        os.utime(listed, ns=(0, listed.stat().st_mtime_ns + 1_000_000))
        started = time.perf_counter()
        blocklist.domains()
        rows.append(("re-read after a change (s)", f"{time.perf_counter() - started:.2f}"))
        listed_name = f"spam{args.entries // 2}.example{(args.entries // 2) % 97}.test"
        rows.append(("check, listed host (us)", f"{per_call_us(blocklist.blocked_domain, listed_name):.2f}"))
        rows.append(
            ("check, under a listed domain (us)", f"{per_call_us(blocklist.blocked_domain, 'a.b.' + listed_name):.2f}")
        )
        rows.append(
            ("check, not listed, 5 labels (us)", f"{per_call_us(blocklist.blocked_domain, 'a.b.c.d.example'):.2f}")
        )
        with_list = creations_ms(args.creations, "after")
        rows.append(("creation without the list (ms, median)", f"{without:.3f}"))
        rows.append((f"creation with {args.entries:,} entries (ms, median)", f"{with_list:.3f}"))
        rows.append(("added by the list (ms)", f"{with_list - without:.3f}"))
    width = max(len(name) for name, _ in rows) + 2
    print(f"| {'Measure':<{width}}| {'Value':>12} |")
    print(f"|{'-' * (width + 1)}|{'-' * 14}|")
    for name, value in rows:
        print(f"| {name:<{width}}| {value:>12} |")


if __name__ == "__main__":
    main()
