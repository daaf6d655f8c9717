"""Serve everything with one command: the web server and the task worker, stopped together.

    python scripts/serve.py -- granian --interface asgi config.asgi:application --port 8000 …

`make run` uses it. The workers are those TASKS_BACKEND needs: `manage.py
analysis_worker` for the default database queue; `manage.py rqworker --with-scheduler
default` for rq (its scheduler starts webhook retries and scheduled project runs when
due), beside an `analysis_worker` that only sweeps; none for immediate.

- A port already taken (a leftover server still serving it) is refused before anything
  starts: granian binds with SO_REUSEPORT, so a second one would serve beside the first.
- Each child runs in a process group of its own (a worker in a session of its own), so
  that stopping it reaches whatever it started (granian's worker processes) and Ctrl-C in
  the terminal reaches only this script, which then stops the children in order.
- SIGTERM or Ctrl-C stops them all within STOP_SECONDS: each gets SIGTERM at once (the
  analysis worker finishes its analyses or hands them back to the queue within its grace),
  and any process of their groups still there after that is killed.
- With METRICS_TOKEN, the directory the processes count into for /metrics
  (PROMETHEUS_MULTIPROC_DIR) is emptied first, or made when unset.
- A worker that exits on its own is started again (it loses nothing: analyses it was running
  are queued again when their lease passes). The web server exiting on its own (its main
  process killed) stops the whole, with a message, rather than leave the workers it
  started serving without a supervisor and the analysis worker stopped.
"""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import FrameType

MANAGE = str(Path(__file__).resolve().parent.parent / "manage.py")
WORKERS = {
    "database": [[sys.executable, MANAGE, "analysis_worker"]],
    "rq": [
        [sys.executable, MANAGE, "rqworker", "--with-scheduler", "default"],
        [sys.executable, MANAGE, "analysis_worker"],
    ],
    "immediate": [],
}
RESTART_DELAY_SECONDS = 1.0
# Everything is stopped within this; the analysis worker's own grace (analysis_worker --stop-grace) is shorter.
STOP_SECONDS = 9.0


def log(message: str) -> None:
    print(f"serve: {message}", file=sys.stderr, flush=True)


def option(command: list[str], name: str, default: str) -> str:
    """The value of `--name value` or `--name=value` in a command line."""
    for index, arg in enumerate(command):
        if arg == name and index + 1 < len(command):
            return command[index + 1]
        if arg.startswith(f"{name}="):
            return arg.split("=", 1)[1]
    return default


def port_taken(host: str, port: int) -> bool:
    # SO_REUSEADDR only: a socket in TIME_WAIT is no obstacle, one that listens is.
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return True
    return False


def start(command: list[str], *, own_session: bool = False) -> subprocess.Popen:
    # A worker gets a session of its own (also a group of its own): with Linux's autogroups its
    # niceness then ranks it against the web server's session, not only within it (common/priority.py).
    if own_session:
        return subprocess.Popen(command, start_new_session=True)
    return subprocess.Popen(command, process_group=0)


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def stop_all(processes: list[tuple[subprocess.Popen, str]]) -> None:
    """SIGTERM to each process at once; after STOP_SECONDS, SIGKILL to whatever of their groups is left."""
    for process, _ in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    for process, name in processes:
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            log(f"{name} did not stop within {STOP_SECONDS:.0f} s: killing it")
    for process, name in processes:
        # The group outlives its leader when the leader is killed: granian's workers, for one.
        if group_alive(process.pid):
            signal_group(process.pid, signal.SIGTERM)  # once: a second SIGTERM means "now" to some
        while group_alive(process.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if group_alive(process.pid):
            log(f"processes started by {name} did not stop within {STOP_SECONDS:.0f} s: killing them")
            signal_group(process.pid, signal.SIGKILL)
        if process.poll() is None:
            process.kill()
        process.wait()


def fresh_metrics_directory() -> None:
    """With METRICS_TOKEN, PROMETHEUS_MULTIPROC_DIR emptied (made, in a temporary directory, when unset).

    Every process counts into its own files there and /metrics sums them: files of an earlier
    run would be summed too (common/metrics.py).
    """
    if not (os.environ.get("METRICS_TOKEN") or os.environ.get("METRICS_TOKEN_FILE")):
        return
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not directory:
        directory = os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="webtools-metrics-")
    Path(directory).mkdir(parents=True, exist_ok=True)
    for counts in Path(directory).glob("*.db"):
        counts.unlink(missing_ok=True)


def main(argv: list[str]) -> int:
    if "--" not in argv or not argv[argv.index("--") + 1 :]:
        log("usage: serve.py -- <web server command>")
        return 2
    web_command = argv[argv.index("--") + 1 :]
    backend = os.environ.get("TASKS_BACKEND", "database").lower()
    worker_commands = WORKERS.get(backend, [])

    host, port = option(web_command, "--host", "127.0.0.1"), option(web_command, "--port", "")
    if port.isdigit() and port_taken(host, int(port)):
        log(
            f"port {port} on {host} is taken: is another `make run` (or what it left behind) still serving it? "
            f"Stop it, or choose another port (make run PORT=…)."
        )
        return 1

    stopping = False

    def request_stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)

    fresh_metrics_directory()
    web = start(web_command)
    workers = [start(command, own_session=True) for command in worker_commands]
    while not stopping and web.poll() is None:
        for index, worker in enumerate(workers):
            if worker.poll() is not None:
                log(f"{' '.join(worker.args[2:])} exited with {worker.returncode}: starting it again")
                time.sleep(RESTART_DELAY_SECONDS)
                workers[index] = start(worker_commands[index], own_session=True)
        time.sleep(0.2)

    if not stopping:
        log(f"the web server exited with {web.returncode}: stopping everything")
    stop_all([(web, "the web server"), *((worker, " ".join(worker.args[2:])) for worker in workers)])
    return 0 if stopping else (web.returncode or 1)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
