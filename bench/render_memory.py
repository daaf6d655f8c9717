"""Chromium's memory with N renderings at once (issue 21): the budget REPORTS_RENDER_MAX_TOTAL_MB holds.

Renders the largest pages of tests/reports/corpus (served by the test site on 127.0.0.1) N at a
time (8 by default, the most a worker host is expected to run), samples every 200 ms the memory of
all browser processes this process started (proportional set size, so libraries shared between
the browsers count once; Linux's smaps_rollup), and prints the peak total, the peak of each
rendering as its own watch saw it, and whether any rendering went over its budget.

    .venv/bin/python bench/render_memory.py [--concurrency 8] [--rounds 2]
"""

import argparse
import os
import socket
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.harness import setup_django  # noqa: E402

setup_django()

from django.conf import settings  # noqa: E402

from reports.analysis import analyze, netguard  # noqa: E402
from reports.analysis.rendering import process_tree_kib  # noqa: E402
from tests.reports.corpus import PAGES_DIR  # noqa: E402
from tests.reports.testsite import TestSite  # noqa: E402


def local_only(host: str, port: int) -> list[str]:
    if host in ("127.0.0.1", "localhost"):
        return ["127.0.0.1"]
    raise socket.gaierror(socket.EAI_NONAME, "the benchmark resolves only 127.0.0.1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2, help="batches of --concurrency renderings")
    parser.add_argument(
        "--timeout", type=float, default=60, help="REPORTS_RENDER_TIMEOUT: on a busy machine 20 s is too short"
    )
    args = parser.parse_args()

    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = True
    settings.REPORTS_RENDER = True
    settings.REPORTS_RENDER_TIMEOUT = args.timeout
    netguard.resolve = local_only
    pages = sorted(PAGES_DIR.glob("*.html"), key=lambda page: page.stat().st_size, reverse=True)
    site = TestSite()
    peak = {"kib": 0}
    stop = threading.Event()

    def sample() -> None:
        # Everything this process started: the Playwright drivers and their browsers.
        while not stop.wait(0.1):
            peak["kib"] = max(peak["kib"], process_tree_kib(os.getpid()) - own_kib())

    def own_kib() -> int:
        with open(f"/proc/{os.getpid()}/smaps_rollup", "rb") as rollup:
            return next(int(line.split()[1]) for line in rollup if line.startswith(b"Pss:"))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    renderings = []
    started = time.monotonic()
    try:
        with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
            urls = [site.url(f"/corpus/{pages[n % len(pages)].name}") for n in range(args.concurrency * args.rounds)]
            for result in pool.map(analyze, urls):
                renderings.append(result.rendering)
    finally:
        stop.set()
        sampler.join()
        site.close()
    elapsed = time.monotonic() - started
    rendered = [r for r in renderings if r["document"] == "rendered"]
    per_render = sorted(r["memory_mb"] for r in rendered)
    print(f"{len(renderings)} renderings, {args.concurrency} at once, in {elapsed:.1f} s")
    print(f"rendered: {len(rendered)}; fell back to the source: {len(renderings) - len(rendered)}")
    for r in renderings:
        if r["document"] != "rendered":
            print(f"  fallback: {r.get('render_error') or r.get('render_skipped')}")
    if per_render:
        print(
            f"per rendering (its own watch's peak, MB): median {per_render[len(per_render) // 2]}, max {per_render[-1]}"
        )
    print(f"peak total of all browsers and drivers at once (PSS): {peak['kib'] / 1024:.0f} MB")
    print(
        f"budget: REPORTS_RENDER_MAX_TOTAL_MB={settings.REPORTS_RENDER_MAX_TOTAL_MB} per rendering, "
        f"{settings.REPORTS_RENDER_MAX_TOTAL_MB * args.concurrency} MB for {args.concurrency}"
    )


if __name__ == "__main__":
    main()
