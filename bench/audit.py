"""A 200-page site audit on the database backend (issue 22): wall time, pages/s and peak memory.

Serves the audit test site (tests/reports/audits/site.py: a chain of linked pages under
/many/, plus its sitemap's pages) on 127.0.0.1, migrates the given PostgreSQL (or SQLite)
database, queues one audit of --pages pages through the services (as POST /api/v1/audits does)
and runs `manage.py analysis_worker` processes until it is done. Prints the wall time from the
queueing to `done`, pages per second, each worker's peak resident memory (VmHWM) and the
most of the site's page fetches in flight at once (the per-host limit: 2).

    .venv/bin/python bench/audit.py --database-url postgres://postgres@127.0.0.1:5432/audits \\
        [--pages 200] [--workers 1] [--threads 8] [--port 18590] [--json out.json]

It renders nothing (REPORTS_RENDER=0): the crawl's cost, not Chromium's, is what it measures
(bench/render_memory.py measures rendering).
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _setup(database_url: str) -> None:
    sys.path.insert(0, str(ROOT))
    from bench.harness import setup_django

    setup_django(
        DATABASE_URL=database_url, TASKS_BACKEND="database", REPORTS_ALLOW_PRIVATE_NETWORKS="1", REPORTS_RENDER="0"
    )


def peak_rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", required=True, help="a database this benchmark may migrate and write to")
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--workers", type=int, default=1, help="analysis_worker processes")
    parser.add_argument("--threads", type=int, default=8, help="threads per worker (REPORTS_WORKER_THREADS)")
    parser.add_argument("--port", type=int, default=0, help="the audit site's port (default: any free one)")
    parser.add_argument("--json", help="write the figures to this file as well")
    args = parser.parse_args()
    _setup(args.database_url)

    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from reports.audits import services
    from tests.reports.audits.site import AuditSite

    call_command("migrate", verbosity=0)
    owner, _ = get_user_model().objects.get_or_create(username="bench-audit")
    site = AuditSite(host="127.0.0.1", port=args.port, pages=args.pages * 2)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    workers = [
        subprocess.Popen(
            [sys.executable, "manage.py", "analysis_worker", f"--threads={args.threads}", "--interval=0.05"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(args.workers)
    ]
    try:
        time.sleep(1)  # the workers' start-up (Django, imports) is not the audit's time
        started = time.monotonic()
        audit = services.audit_create(owner=owner, url=site.url("/many/0"), max_pages=args.pages)
        peaks = [0.0] * len(workers)
        while True:
            audit.refresh_from_db()
            peaks = [max(peak, peak_rss_mib(worker.pid)) for peak, worker in zip(peaks, workers, strict=True)]
            if audit.is_finished:
                break
            if time.monotonic() - started > 1800:
                raise SystemExit(f"the audit is still {audit.status} after 30 minutes")
            time.sleep(0.2)
        wall = time.monotonic() - started
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=60)
        site.close()
    figures = {
        "pages": audit.pages_found,
        "pages_done": audit.pages_done,
        "pages_failed": audit.pages_failed,
        "status": audit.status,
        "wall_s": round(wall, 2),
        "pages_per_s": round(audit.pages_found / wall, 2),
        "workers": args.workers,
        "threads": args.threads,
        "worker_peak_rss_mib": [round(peak, 1) for peak in peaks],
        "site_peak_page_fetches": site.peak,
        "database": connection.vendor,
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
