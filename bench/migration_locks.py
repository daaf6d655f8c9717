"""How long each migration takes on a large database, and which table locks it holds for how long.

    DATABASE_URL=postgres://…/seeded python -m bench.migration_locks shortener:0005 reports:0003 pastes:0003

For each APP:FROM given, every migration of APP from FROM on is first reverted (migrate APP FROM-1),
then applied again one at a time (APP:FROM:TO stops after TO), as an instance upgrading through
them would, while a sampler reads pg_locks every 20 ms: for each table, the longest stretch over
which the migration's connection held a lock that stops writers (SHARE and stronger: CREATE
INDEX, ADD CONSTRAINT validating a CHECK, a trigger's creation) or readers too (ACCESS EXCLUSIVE:
ALTER TABLE). Rows locked by UPDATEs (backfills) are not table locks: a backfill's total time is
in `seconds`. A second connection meanwhile updates one row of the links, the visits, the pastes
and the reports in place (a write that changes nothing, each in its own transaction) every 10 ms
and keeps the longest it waited: what a user's write would have waited, batches of locks included
(the sampler sees two locks less than 20 ms apart as one stretch). Seed the database first
(bench/scale_seed.py at 10⁶); PostgreSQL only.
"""

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg

PROJECT_DIR = Path(__file__).resolve().parent.parent
APPLICATION_NAME = "bench-migration-locks"
# Lock modes that block INSERT/UPDATE/DELETE (ROW EXCLUSIVE) on the table: what a user notices.
BLOCKS_WRITES = {"ShareLock", "ShareRowExclusiveLock", "ExclusiveLock", "AccessExclusiveLock"}
SAMPLE_SECONDS = 0.02


class LockSampler(threading.Thread):
    """Samples the migrating connection's granted table locks; keeps each table's longest blocking stretch."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.stop = threading.Event()
        self.longest: dict[str, dict[str, float]] = {}

    def run(self) -> None:
        held_since: dict[tuple[str, str], float] = {}
        with psycopg.connect(self.url, autocommit=True) as pg:
            while not self.stop.is_set():
                now = time.monotonic()
                rows = pg.execute(
                    "SELECT c.relname, l.mode FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                    "JOIN pg_stat_activity a ON a.pid = l.pid "
                    "WHERE a.application_name = %s AND l.granted AND c.relkind IN ('r', 'p')",
                    [APPLICATION_NAME],
                ).fetchall()
                current = {(table, mode) for table, mode in rows if mode in BLOCKS_WRITES}
                for key in current:
                    held_since.setdefault(key, now)
                for key in list(held_since):
                    if key not in current:
                        self._note(key, now - held_since.pop(key))
                time.sleep(SAMPLE_SECONDS)
            for key, since in held_since.items():
                self._note(key, time.monotonic() - since)

    def _note(self, key: tuple[str, str], seconds: float) -> None:
        table, mode = key
        modes = self.longest.setdefault(table, {})
        modes[mode] = round(max(modes.get(mode, 0.0), seconds), 2)


# One row each, written as it is: the triggers run, the counts they keep do not change.
PROBES = {
    "shortener_shortlink": "UPDATE shortener_shortlink SET counter = counter "
    "WHERE id = (SELECT MIN(id) FROM shortener_shortlink)",
    "shortener_visit": "UPDATE shortener_visit SET day = day WHERE id = (SELECT MIN(id) FROM shortener_visit)",
    "pastes_paste": "UPDATE pastes_paste SET views = views WHERE id = (SELECT MIN(id) FROM pastes_paste)",
    "reports_report": "UPDATE reports_report SET score = score WHERE id = (SELECT MIN(id) FROM reports_report)",
}


class WriteProbe(threading.Thread):
    """Writes one row of each probed table every 10 ms; keeps the longest wait per table."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.stop = threading.Event()
        self.longest: dict[str, float] = {}

    def run(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as pg:
            while not self.stop.is_set():
                for table, statement in PROBES.items():
                    started = time.monotonic()
                    pg.execute(statement)
                    waited = round(time.monotonic() - started, 2)
                    self.longest[table] = max(self.longest.get(table, 0.0), waited)
                time.sleep(0.01)


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=PROJECT_DIR, env=env, check=True)


def migrations_from(app: str, first: str, last: str = "9999") -> list[str]:
    names = sorted(p.stem for p in (PROJECT_DIR / app / "migrations").glob("0*.py"))
    return [name for name in names if first <= name[:4] <= last]


def row_counts(url: str) -> dict[str, int]:
    with psycopg.connect(url) as pg:
        return dict(
            pg.execute(
                "SELECT relname, n_live_tup FROM pg_stat_user_tables WHERE n_live_tup >= 100000 ORDER BY relname"
            ).fetchall()
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "starts", nargs="+", help="APP:NNNN, the first migration of APP to measure (APP:NNNN:MMMM: stop after MMMM)"
    )
    args = parser.parse_args()
    url = os.environ["DATABASE_URL"]
    env = {**os.environ, "PGAPPNAME": APPLICATION_NAME}
    print(json.dumps({"rows": row_counts(url)}), flush=True)
    for start in args.starts:
        app, first, *last = start.split(":")
        names = migrations_from(app, first, *last)
        started = time.monotonic()
        manage(env, "migrate", app, f"{int(first) - 1:04d}", "--noinput", "-v0")
        print(
            json.dumps(
                {"app": app, "reverted_to": f"{int(first) - 1:04d}", "seconds": round(time.monotonic() - started, 1)}
            ),
            flush=True,
        )
        for name in names:
            sampler, probe = LockSampler(url), WriteProbe(url)
            sampler.start()
            probe.start()
            started = time.monotonic()
            manage(env, "migrate", app, name, "--noinput", "-v0")
            seconds = round(time.monotonic() - started, 2)
            sampler.stop.set()
            probe.stop.set()
            sampler.join()
            probe.join()
            print(
                json.dumps(
                    {
                        "migration": f"{app}.{name}",
                        "seconds": seconds,
                        "locks": sampler.longest,
                        "longest_write_wait": probe.longest,
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
