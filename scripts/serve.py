"""Serve everything with one command: the web server and the task worker, stopped together.

    python scripts/serve.py -- granian --interface wsgi config.wsgi:application …

`make run` uses it. The workers are those TASKS_BACKEND needs: `manage.py
analysis_worker` for the default database queue; `manage.py rqworker default` for rq,
beside an `analysis_worker` that only sweeps stale leases; none for immediate. A
worker that exits on its own is started again (it loses nothing: analyses it was
running are queued again when their lease passes); the web server exiting, SIGTERM
or Ctrl-C stops them all, each given WORKER_STOP_SECONDS to finish what it is doing.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType

MANAGE = str(Path(__file__).resolve().parent.parent / "manage.py")
WORKERS = {
    "database": [[sys.executable, MANAGE, "analysis_worker"]],
    "rq": [[sys.executable, MANAGE, "rqworker", "default"], [sys.executable, MANAGE, "analysis_worker"]],
    "immediate": [],
}
RESTART_DELAY_SECONDS = 1.0
WORKER_STOP_SECONDS = 30.0


def log(message: str) -> None:
    print(f"serve: {message}", file=sys.stderr, flush=True)


def stop(process: subprocess.Popen, name: str) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=WORKER_STOP_SECONDS)
    except subprocess.TimeoutExpired:
        log(f"{name} did not stop within {WORKER_STOP_SECONDS:.0f} s: killing it")
        process.kill()
        process.wait()


def main(argv: list[str]) -> int:
    if "--" not in argv or not argv[argv.index("--") + 1 :]:
        log("usage: serve.py -- <web server command>")
        return 2
    web_command = argv[argv.index("--") + 1 :]
    backend = os.environ.get("TASKS_BACKEND", "database").lower()
    worker_commands = WORKERS.get(backend, [])

    stopping = False

    def request_stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)

    web = subprocess.Popen(web_command)
    workers = [subprocess.Popen(command) for command in worker_commands]
    while not stopping and web.poll() is None:
        for index, worker in enumerate(workers):
            if worker.poll() is not None:
                log(f"{' '.join(worker.args[2:])} exited with {worker.returncode}: starting it again")
                time.sleep(RESTART_DELAY_SECONDS)
                workers[index] = subprocess.Popen(worker_commands[index])
        time.sleep(0.2)

    for worker in workers:
        stop(worker, " ".join(worker.args[2:]))
    stop(web, "the web server")
    return 0 if stopping else web.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv))
