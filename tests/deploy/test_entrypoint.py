"""The image's entrypoint, run here as the image runs it: `web` serves only a migrated database.

podman-compose before podman 4.6 starts `web` even when the one-shot `migrate` failed (it does
not honour `service_completed_successfully`), and Docker's compose starts it while an old
container may still be migrating: so the `web` role itself waits for every migration to be
applied (MIGRATIONS_WAIT_SECONDS) and exits non-zero with the reason rather than serve code newer
than its schema. deploy/entrypoint.sh finds the project beside it (/app in the image), so it runs
here on the project's virtual environment with a SQLite file of the test's own.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.polling import eventually
from tests.servers import BASE_DIR, free_port, server_env

ENTRYPOINT = BASE_DIR / "deploy" / "entrypoint.sh"

pytestmark = pytest.mark.timeout(300)


def entrypoint_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return server_env(
        f"sqlite:///{tmp_path}/db.sqlite3",
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",  # python and granian as in the image
        HOST="127.0.0.1",
        PORT=str(free_port()),
        WEB_CONCURRENCY="1",
        **extra,
    )


def answers(port: str) -> int | None:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code
    except httpx.TransportError:
        return None


def test_web_refuses_to_serve_a_database_whose_migrations_are_not_applied(tmp_path):
    env = entrypoint_env(tmp_path, MIGRATIONS_WAIT_SECONDS="1")
    started = time.monotonic()
    result = subprocess.run(["sh", str(ENTRYPOINT), "web"], env=env, capture_output=True, text=True, timeout=180)
    assert result.returncode == 3, result.stderr
    assert "web: not serving:" in result.stderr and "migrations not applied" in result.stderr, result.stderr
    assert "Run the migrate role" in result.stderr
    assert answers(env["PORT"]) is None  # nothing was started
    print(f"refused in {time.monotonic() - started:.1f} s")


def test_web_waits_while_migrate_runs_then_serves(tmp_path):
    env = entrypoint_env(tmp_path, MIGRATIONS_WAIT_SECONDS="240")
    web = subprocess.Popen(
        ["sh", str(ENTRYPOINT), "web"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        first = web.stdout.readline()
        assert first.startswith("web: waiting for migrate:") and "migrations not applied" in first, first
        assert web.poll() is None and answers(env["PORT"]) is None  # waiting, not serving

        migrate = subprocess.run(
            ["sh", str(ENTRYPOINT), "migrate"], env=env, capture_output=True, text=True, timeout=240
        )
        assert migrate.returncode == 0, migrate.stderr

        eventually(lambda: answers(env["PORT"]) == 200, timeout=90, interval=0.5, message="web never served")
        assert web.poll() is None
    finally:
        web.send_signal(signal.SIGTERM)  # the entrypoint exec'd granian: this is the server itself
        try:
            web.wait(timeout=20)
        except subprocess.TimeoutExpired:
            web.kill()
            web.wait()
