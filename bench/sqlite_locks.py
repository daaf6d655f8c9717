"""SQLite's write lock under many small writers: its own busy handler against short turns.

    .venv/bin/python bench/sqlite_locks.py [--seconds 6] [--rounds 3]

Two processes of four threads each count "views" (an autocommit UPDATE … RETURNING, as a paste
read does, then a little Python, as the rest of a request) while a third writes a batch of
1,500 rows in one transaction every 0.5 s (as the visit flush did before it wrote 500 rows a
statement). Each round runs it twice on a fresh WAL file: `busy`, SQLite's busy handler with a
20 s timeout (Django's backend: its sleeps grow to 100 ms), and `turns`, a 10 ms busy timeout
tried again at once until 20 s (common.sqlite_backend). Prints each writer's wait: p50, p99
and the worst.
"""

import argparse
import multiprocessing
import os
import sqlite3
import tempfile
import threading
import time
from pathlib import Path


def setup(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE paste (id INTEGER PRIMARY KEY, views INT, body TEXT)")
    conn.executemany("INSERT INTO paste VALUES (?, 0, ?)", [(i, "x" * 500) for i in range(1000)])
    conn.close()


def readers(path: Path, mode: str, seconds: float, results) -> None:
    waits: list[float] = []

    def run() -> None:
        conn = sqlite3.connect(path, isolation_level=None, timeout=0.01 if mode == "turns" else 20)
        conn.execute("PRAGMA synchronous=NORMAL")
        end, i = time.monotonic() + seconds, 0
        while time.monotonic() < end:
            started = time.perf_counter()
            while True:
                try:
                    conn.execute("UPDATE paste SET views = views + 1 WHERE id = ? RETURNING *", (i % 1000,)).fetchall()
                    break
                except sqlite3.OperationalError:
                    if mode != "turns":
                        raise
            waits.append(time.perf_counter() - started)
            i += 1
            sum(range(3000))  # the rest of a request

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results.put(waits)


def flusher(path: Path, seconds: float) -> None:
    conn = sqlite3.connect(path, isolation_level=None, timeout=20)
    conn.execute("PRAGMA synchronous=NORMAL")
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(0.5)
        conn.execute("BEGIN IMMEDIATE")
        for i in range(1500):
            conn.execute("UPDATE paste SET views = views WHERE id = ?", (i % 1000,))
        conn.execute("COMMIT")


def measure(path: Path, mode: str, seconds: float) -> str:
    setup(path)
    results = multiprocessing.Queue()
    processes = [multiprocessing.Process(target=readers, args=(path, mode, seconds, results)) for _ in range(2)]
    processes.append(multiprocessing.Process(target=flusher, args=(path, seconds)))
    for process in processes:
        process.start()
    waits = sorted(results.get() + results.get())
    for process in processes:
        process.join()
    n = len(waits)
    return (
        f"{mode:5} {n:7} writes  p50 {waits[n // 2] * 1000:6.2f} ms  p99 {waits[int(n * 0.99)] * 1000:7.2f} ms  "
        f"worst {waits[-1] * 1000:8.1f} ms  (load average {os.getloadavg()[0]:.0f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "locks.sqlite3"
        for _ in range(args.rounds):
            for mode in ("busy", "turns"):
                print(measure(path, mode, args.seconds), flush=True)


if __name__ == "__main__":
    main()
