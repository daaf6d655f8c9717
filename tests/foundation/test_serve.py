"""scripts/serve.py, which `make run` uses: the web server and the task worker start and stop together."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.servers import free_port, server_env

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


# --- As `make run` serves: granian and the analysis worker (issue 20, item 4) ---

STOP_SECONDS = 10


def make_run_command(port: int) -> list[str]:
    """scripts/serve.py with the web server command of the Makefile's `run`."""
    granian = str(Path(sys.executable).with_name("granian"))
    return [
        sys.executable,
        "scripts/serve.py",
        "--",
        granian,
        "--interface",
        "asgi",
        "config.asgi:application",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        "2",
        "--blocking-threads",
        "1",
        "--respawn-failed-workers",
        "--respawn-interval",
        "1",
        "--workers-kill-timeout",
        "5",
    ]


def session_pids(session: int) -> list[int]:
    """Every process of the session (what serve.py and its children started, wherever re-parented)."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if int(fields[3]) == session and fields[0] != "Z":
            pids.append(int(stat.parent.name))
    return pids


@pytest.fixture
def site_env(tmp_path):
    env = server_env(f"sqlite:///{tmp_path / 'db.sqlite3'}", TASKS_BACKEND="database", WEB_THREADS="2")
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=PROJECT_DIR, env=env, check=True)
    return env


def start_make_run(env: dict[str, str], port: int) -> subprocess.Popen:
    process = subprocess.Popen(
        make_run_command(port), cwd=PROJECT_DIR, env=env, start_new_session=True, stderr=subprocess.PIPE, text=True
    )

    def answers() -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
        except httpx.TransportError:
            assert process.poll() is None, process.stderr.read()
            return False

    wait_for(answers)
    wait_for(lambda: any("analysis_worker" in args for args in children(process.pid)))
    return process


def worker_sessions(process: subprocess.Popen) -> list[int]:
    """The sessions of the analysis workers serve.py started: each leads one (common/priority.py)."""
    output = subprocess.run(
        ["ps", "-ww", "-o", "pid=,args=", "--ppid", str(process.pid)], capture_output=True, text=True
    )
    workers = [int(line.split()[0]) for line in output.stdout.splitlines() if "analysis_worker" in line]
    assert workers and all(os.getsid(pid) == pid for pid in workers)
    return workers


def kill_session(process: subprocess.Popen, sessions: list[int] = ()) -> None:
    for pid in [pid for session in (process.pid, *sessions) for pid in session_pids(session)]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.timeout(900)  # ten starts of granian and the worker on a busy machine
def test_ctrl_c_or_sigterm_stops_everything_make_run_started_within_10_s_ten_times_in_a_row(site_env):
    for attempt in range(10):
        port = free_port()
        process = start_make_run(site_env, port)
        sessions = [process.pid, *worker_sessions(process)]
        try:
            # Ctrl-C reaches the terminal's foreground process group; SIGTERM comes from a supervisor.
            if attempt % 2:
                os.killpg(process.pid, signal.SIGINT)
            else:
                process.send_signal(signal.SIGTERM)
            started = time.monotonic()

            assert process.wait(timeout=STOP_SECONDS) == 0
            left = STOP_SECONDS - (time.monotonic() - started)
            wait_for(lambda s=sessions: all(session_pids(one) == [] for one in s), timeout=max(0.1, left))
            with pytest.raises(httpx.ConnectError):
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
        finally:
            kill_session(process, sessions)


def test_a_port_already_served_is_refused_with_a_message(site_env):
    port = free_port()
    with socket.create_server(("127.0.0.1", port)):
        result = subprocess.run(
            make_run_command(port), cwd=PROJECT_DIR, env=site_env, capture_output=True, text=True, timeout=60
        )

    assert result.returncode == 1
    assert f"port {port} on 127.0.0.1 is taken" in result.stderr


def test_when_the_web_server_dies_serve_stops_everything_and_says_so(site_env):
    process = start_make_run(site_env, free_port())
    sessions = [process.pid, *worker_sessions(process)]
    try:
        [granian] = [
            int(line.split()[0])
            for line in subprocess.run(
                ["ps", "-ww", "-o", "pid=,args=", "--ppid", str(process.pid)], capture_output=True, text=True
            ).stdout.splitlines()
            if "granian" in line
        ]

        os.kill(granian, signal.SIGKILL)

        assert process.wait(timeout=STOP_SECONDS) != 0
        assert "the web server exited with -9: stopping everything" in process.stderr.read()
        wait_for(lambda: all(session_pids(one) == [] for one in sessions), timeout=STOP_SECONDS)
    finally:
        kill_session(process, sessions)
