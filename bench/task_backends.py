"""Compare the task backends the analyses can run on: what choosing TASKS_BACKEND costs.

    .venv/bin/python -m bench.task_backends --database-url postgres://…/db [--redis-url redis://…/5]

For each backend: the time to queue one task (what a request pays), and the time from
queuing TASKS tasks to the last one finished with its worker running (pickup plus
bookkeeping; each task is an analysis of a report that does not exist, which only
looks the report up), and the worker's memory. The database is dropped and recreated.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.harness import PROJECT_DIR, SECRET_KEY, VENV_BIN, manage, recreate_database

TASKS = 200
MEASURE = """
import json, time
from django.tasks import task_backends
from reports.tasks import analyze_report
backend = task_backends["default"]
times, ids = [], []
for n in range({tasks}):
    started = time.perf_counter()
    ids.append(analyze_report.enqueue(10**9 + n, 1).id)
    times.append(time.perf_counter() - started)
queued_at = time.perf_counter()
while not all(backend.get_result(i).status.name in ("SUCCESSFUL", "FAILED") for i in ids):
    time.sleep(0.01)
print(json.dumps({{"enqueue_ms": [t * 1000 for t in times], "drain_s": time.perf_counter() - queued_at}}))
"""
WORKERS = {
    "database": [str(VENV_BIN / "python"), "manage.py", "analysis_worker"],
    "rq": [str(VENV_BIN / "python"), "manage.py", "rqworker", "default"],
}


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children (RQ forks a work horse per job)."""
    total = 0
    for proc in [
        pid,
        *map(int, subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()),
    ]:
        status = Path(f"/proc/{proc}/status")
        if status.exists():
            line = next(line for line in status.read_text().splitlines() if line.startswith("VmRSS"))
            total += int(line.split()[1])
    return total / 1024


def measure(backend: str, env: dict[str, str]) -> str:
    import json

    worker = subprocess.Popen(
        WORKERS[backend], cwd=PROJECT_DIR, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        time.sleep(8)  # the worker has started
        idle_mb = rss_mb(worker.pid)
        result = json.loads(manage(env, "shell", "-c", MEASURE.format(tasks=TASKS)).splitlines()[-1])
        busy_mb = rss_mb(worker.pid)
    finally:
        worker.terminate()
        worker.wait(timeout=60)
    enqueue = sorted(result["enqueue_ms"])
    p99 = enqueue[int(len(enqueue) * 0.99)]
    return (
        f"{backend:<9} enqueue p50 {statistics.median(enqueue):6.2f} ms  p99 {p99:6.2f} ms"
        f"   {TASKS} tasks done in {result['drain_s']:5.1f} s ({TASKS / result['drain_s']:5.0f}/s)"
        f"   worker RSS {idle_mb:4.0f} MB idle, {busy_mb:4.0f} MB after"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", required=True, help="a PostgreSQL database that may be dropped")
    parser.add_argument("--redis-url", help="a Redis database that may be emptied (measures the rq backend)")
    args = parser.parse_args()
    base = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": SECRET_KEY,
        "DATABASE_URL": args.database_url,
        "LOG_LEVEL": "WARNING",
    }
    recreate_database(args.database_url)
    manage(base, "migrate", "--noinput", "-v0")
    lines = [measure("database", {**base, "TASKS_BACKEND": "database", "REDIS_URL": ""})]
    if args.redis_url:
        import redis

        redis.Redis.from_url(args.redis_url).flushdb()
        lines.append(measure("rq", {**base, "TASKS_BACKEND": "rq", "REDIS_URL": args.redis_url}))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    os.chdir(PROJECT_DIR)
    sys.exit(main())
