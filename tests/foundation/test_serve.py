"""scripts/serve.py, which `make run` uses: the web server and the task worker start and stop together."""

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

PROJECT_DIR = Path(__file__).resolve().parents[2]
# A stand-in web server that waits to be stopped, as granian does.
WEB = [sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, lambda *a: exit(0)); time.sleep(600)"]


def children(pid: int) -> list[str]:
    output = subprocess.run(["ps", "-ww", "-o", "args=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return output.splitlines()


def wait_for(condition, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.2)


@pytest.fixture
def serve(tmp_path):
    env = {
        **os.environ,
        "TASKS_BACKEND": "database",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "SECRET_KEY": "x" * 50,
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=PROJECT_DIR, env=env, check=True)
    # In a session of its own, so that nothing it started can outlive the test.
    process = subprocess.Popen(
        [sys.executable, "scripts/serve.py", "--", *WEB], cwd=PROJECT_DIR, env=env, start_new_session=True
    )
    yield process
    if process.poll() is None:
        process.terminate()
        process.wait(timeout=60)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def worker_pids(serve) -> list[int]:
    output = subprocess.run(["pgrep", "-P", str(serve.pid), "-f", "analysis_worker"], capture_output=True, text=True)
    return [int(pid) for pid in output.stdout.split()]


def test_serve_starts_the_web_server_and_the_analysis_worker_and_sigterm_stops_both(serve):
    wait_for(lambda: len(children(serve.pid)) == 2)
    started = children(serve.pid)

    serve.send_signal(signal.SIGTERM)

    assert serve.wait(timeout=60) == 0
    assert any("analysis_worker" in args for args in started)
    assert any("time.sleep(600)" in args for args in started)
    assert children(serve.pid) == []


def test_serve_starts_a_killed_worker_again(serve):
    wait_for(lambda: len(worker_pids(serve)) == 1)
    [first] = worker_pids(serve)

    os.kill(first, signal.SIGKILL)

    wait_for(lambda: worker_pids(serve) not in ([], [first]))
    assert serve.poll() is None
