"""Plumbing for the HTTP benchmarks: databases, servers, wrk runs and their parsing."""

import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg

PROJECT_DIR = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
WRK_DIR = Path(__file__).resolve().parent / "wrk"
# What the scripts that load Django in their own process sign with: nothing signed outlives a run.
SECRET_KEY = "benchmark-only-secret-key-0123456789abcdefghijklmnopqrstuvwxyz"
# wrk runs on the same cores as the service. At the same priority its busy threads starve a
# server thread now and then for 1-4 s on the 2-core machine (bench/README.md), which a
# client on another machine never does; at a lower one the service gets the CPU it needs first.
WRK_NICENESS = 10


def ensure_wrk() -> str:
    """Find wrk, installing Debian's package when running as root."""
    found = shutil.which("wrk")
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("Installing wrk (Debian package)…", flush=True)
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "wrk"],
            check=True,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
        found = shutil.which("wrk")
    if not found:
        sys.exit("wrk is not installed: apt-get install wrk")
    return found


def sqlite_path(url: str) -> Path | None:
    """The file of a sqlite:///path URL (sqlite:////tmp/bench.sqlite3 is /tmp/bench.sqlite3), else None."""
    return Path(url.removeprefix("sqlite:///")) if url.startswith("sqlite:") else None


@contextmanager
def connect(url: str):
    """A connection to the service's database (PostgreSQL or SQLite) whose execute() returns a cursor."""
    path = sqlite_path(url)
    if path is None:
        with psycopg.connect(url, autocommit=True) as conn:
            yield conn
        return
    conn = sqlite3.connect(path, timeout=20, isolation_level=None)
    try:
        yield conn
    finally:
        conn.close()


def recreate_database(url: str) -> None:
    """Drop and create the postgres:// URL's database (or delete the SQLite file), so every run starts fresh."""
    path = sqlite_path(url)
    if path is not None:
        for name in (path, path.with_name(f"{path.name}-wal"), path.with_name(f"{path.name}-shm")):
            name.unlink(missing_ok=True)
        return
    base, _, name = url.rpartition("/")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def setup_django(**env: str) -> None:
    """Set Django up in this process with the project's settings, after `env` (the bench's key unless one is set)."""
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("SECRET_KEY", SECRET_KEY)
    import django

    django.setup()


def django_on_fresh_database(url: str) -> None:
    """Set Django up in this process on the URL's database, dropped and migrated afresh (no Redis)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": SECRET_KEY,
        "DATABASE_URL": url,
        "REDIS_URL": "",
    }
    recreate_database(url)
    manage(env, "migrate", "--noinput")
    setup_django(**env)


def database_exists(url: str) -> bool:
    """Whether the postgres:// URL's database (or the SQLite file) is there."""
    path = sqlite_path(url)
    if path is not None:
        return path.exists()
    base, _, name = url.rpartition("/")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is not None


def manage(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [str(VENV_BIN / "python"), "manage.py", *args],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        sys.exit(f"manage.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


@contextmanager
def server(
    target: str,
    *,
    port: int,
    workers: int,
    threads: int,
    env: dict[str, str],
    ready_path: str = "/",
    interface: str = "wsgi",
    ready_timeout: float = 30,
):
    """Run `target` (module:application) under granian, as make run does, until the block ends.

    Under ASGI (config.asgi, as make run serves) granian runs one thread and the application
    its own pool of `threads` threads (WEB_THREADS); under WSGI granian's blocking threads are the pool.
    """
    if interface == "asgi":
        env = {**env, "WEB_THREADS": str(threads)}
        threads = 1
    command = [
        str(VENV_BIN / "granian"),
        "--interface",
        interface,
        target,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--blocking-threads",
        str(threads),
        "--no-access-log",
        "--log-level",
        "warning",
    ]
    process = subprocess.Popen(command, cwd=PROJECT_DIR, env=env)
    try:
        wait_until_up(f"http://127.0.0.1:{port}{ready_path}", process, timeout=ready_timeout)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process, grace=10)


def stop(process: subprocess.Popen, *, grace: float) -> None:
    """SIGTERM, then SIGKILL if the process has not exited within `grace` seconds."""
    process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def wait_until_up(url: str, process: subprocess.Popen, timeout: float = 30) -> None:
    opener = urllib.request.build_opener(_NoRedirect)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"The server for {url} exited with {process.returncode}.")
        try:
            opener.open(url, timeout=2)
            return
        except urllib.error.HTTPError:
            return  # it answers; a 3xx/4xx is still an answer
        except OSError:
            time.sleep(0.2)
    sys.exit(f"The server for {url} did not answer within {timeout} s.")


@dataclass
class WrkResult:
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    errors: int
    output: str


_UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def _duration_ms(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(number) * _UNITS_MS[unit]


def run_wrk(
    url: str,
    *,
    script: str,
    args: list[str],
    duration: int,
    connections: int,
    threads: int,
    headers: dict[str, str] | None = None,
) -> WrkResult:
    command = [
        "nice",
        "-n",
        str(WRK_NICENESS),
        ensure_wrk(),
        f"-t{threads}",
        f"-c{connections}",
        f"-d{duration}s",
        "--timeout",
        "5s",
        "--latency",
        "-s",
        str(WRK_DIR / script),
    ]
    for name, value in (headers or {}).items():
        command += ["-H", f"{name}: {value}"]
    command += [url, "--", *args]
    output = subprocess.run(command, capture_output=True, text=True, check=True, timeout=duration + 60).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    p50 = _duration_ms(re.search(r"^\s+50%\s+(\S+)", output, re.M).group(1))
    p99 = _duration_ms(re.search(r"^\s+99%\s+(\S+)", output, re.M).group(1))
    errors = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses: (\d+)", output))
    socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    if socket:
        errors += sum(int(n) for n in socket.groups())
    return WrkResult(rps, p50, p99, errors, output)
