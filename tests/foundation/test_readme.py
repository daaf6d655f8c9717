"""The README's first steps, run as a newcomer would: a fresh clone, `make run`, then its commands.

Slow (a first collectstatic takes half a minute), so it runs when FRESH_CLONE_TEST=1, as
.ci/run sets it. It clones the committed HEAD and reuses this venv through a symlink.
"""

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.servers import free_port  # TEST_SERVER_PORTS when set, else any free port

PROJECT_DIR = Path(__file__).resolve().parents[2]
README = (PROJECT_DIR / "README.md").read_text()

pytestmark = [
    pytest.mark.fresh_clone,
    pytest.mark.timeout(900),
    pytest.mark.skipif(not os.environ.get("FRESH_CLONE_TEST"), reason="slow: set FRESH_CLONE_TEST=1 (CI does)"),
]


def readme_block(language: str) -> str:
    """The first ```language block of the README's "After `make run`" section."""
    section = README[README.index("### After `make run`") :]
    start = section.index(f"```{language}\n") + len(language) + 4
    return section[start : section.index("\n```", start)]


def readme_commands() -> list[str]:
    """The shell block of the README's "After `make run`" section, one command per item."""
    commands = readme_block("sh").replace("\\\n", " ").splitlines()
    return [re.sub(r"\s+#[^'\"]*$", "", command).strip() for command in commands]


def readme_output_patterns(port: int) -> list[re.Pattern[str]]:
    """What the README says `make run` prints, a line each; `…` stands for a key or a password."""
    lines = readme_block("text").replace(":8000", f":{port}").splitlines()
    return [re.compile(".+".join(re.escape(part) for part in line.split("…"))) for line in lines]


def run_in_one_shell(commands: list[str], clone: Path, env: dict[str, str]) -> list[str]:
    """Run `commands` one after the other in one bash, as pasted into a terminal; each one's output."""
    marker = "=== end of a README command ==="
    script = "set -euo pipefail\n" + "".join(f"{command}\necho '{marker}'\n" for command in commands)
    done = subprocess.run(["bash", "-c", script], cwd=clone, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, f"{script}\n{done.stdout}\n{done.stderr}"
    return done.stdout.split(f"{marker}\n")[: len(commands)]


class Server:
    """`make run` in the background, its output collected line by line."""

    def __init__(self, clone: Path, env: dict[str, str], port: int) -> None:
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            ["make", "run", f"PORT={port}"],
            cwd=clone,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # so that stopping it stops granian's workers too
        )
        threading.Thread(target=self._read, daemon=True).start()
        self.url = f"http://127.0.0.1:{port}"

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_until_serving(self, timeout: float = 400) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, "\n".join(self.lines)
            try:
                if httpx.get(f"{self.url}/healthz").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.5)
        pytest.fail("make run did not serve in time:\n" + "\n".join(self.lines))

    def line_after(self, heading: str) -> str:
        return self.lines[self.lines.index(heading) + 1]

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=30)


@pytest.fixture
def clone(tmp_path) -> Path:
    clone = tmp_path / "webtools"
    subprocess.run(["git", "clone", "--quiet", str(PROJECT_DIR), str(clone)], check=True)
    (clone / ".venv").symlink_to(sys.prefix)
    return clone


@pytest.fixture
def newcomer_env() -> dict[str, str]:
    """A shell with none of the test suite's settings: no DATABASE_URL, SECRET_KEY, … (SQLite in the clone)."""
    return {name: os.environ[name] for name in ("PATH", "HOME", "LANG", "TMPDIR") if name in os.environ}


def test_the_readme_works_to_the_end_on_a_fresh_clone(clone, newcomer_env):
    port = free_port()
    server = Server(clone, newcomer_env, port)
    try:
        server.wait_until_serving()
        first_start = list(server.lines)
        pastes_key = server.line_after("Pastes API key of demo:")
        reports_key = server.line_after("Reports API key of demo:")
        admin_line = next(line for line in first_start if line.startswith("Short links admin mode:"))
        admin_password = admin_line.rsplit(" ", 1)[1]

        # What the README says make run prints is what it prints.
        for pattern in readme_output_patterns(port):
            assert any(pattern.fullmatch(line) for line in first_start), (pattern.pattern, first_start)

        # The README's commands, in order, in one shell as a user would paste them: nothing sets
        # PASTES_KEY but the README's own line (createsuperuser answered by env).
        env = {
            **newcomer_env,
            "DJANGO_SUPERUSER_USERNAME": "admin",
            "DJANGO_SUPERUSER_EMAIL": "admin@example.com",
            "DJANGO_SUPERUSER_PASSWORD": "a-long-admin-password",
        }
        commands = readme_commands()
        assert [command.split()[:3] for command in commands] == [
            [".venv/bin/python", "manage.py", "createsuperuser"],
            [".venv/bin/python", "manage.py", "create_api_key"],
            ["PASTES_KEY=$(.venv/bin/python", "-c", "'import"],
            ["curl", "-s", "http://127.0.0.1:8000/pastes/create"],
        ]
        outputs = run_in_one_shell(
            [commands[0] + " --noinput", commands[1], commands[2], commands[3].replace(":8000", f":{port}")],
            clone,
            env,
        )
        another_key = outputs[1].splitlines()[-1]
        created = json.loads(outputs[3])
        assert (created["name"], created["content"]) == ("hello", "print(42)")

        with httpx.Client(base_url=server.url) as browser:
            # The paste the README's curl made belongs to demo: its key was the one read from .demo_keys.
            account = browser.get("/pastes/accounts/@demo", headers={"Authorization": another_key})
            assert created["id"] in [paste["id"] for paste in account.json()["pastes"]]
            assert browser.get("/api/v1/reports", headers={"Authorization": f"Bearer {reports_key}"}).status_code == 200
            assert sign_in_to_django_admin(browser, "admin", "a-long-admin-password")
            assert enter_shortener_admin_mode(browser, admin_password)
            assert "print" in browser.get(f"/pastes/{created['id']}").text
    finally:
        server.stop()
    assert "Collecting static files (only when they changed)" in first_start

    server = Server(clone, newcomer_env, port)
    try:
        server.wait_until_serving()
    finally:
        server.stop()
    assert "Collecting static files (only when they changed)" not in server.lines
    assert server.line_after("Pastes API key of demo:") == pastes_key
    assert server.line_after("Reports API key of demo:") == reports_key


def sign_in_to_django_admin(browser: httpx.Client, username: str, password: str) -> bool:
    browser.get("/admin/login/")
    token = browser.cookies["csrftoken"]
    response = browser.post(
        "/admin/login/?next=/admin/",
        data={"username": username, "password": password, "csrfmiddlewaretoken": token, "next": "/admin/"},
    )
    return response.status_code == 302 and response.headers["Location"] == "/admin/"


def enter_shortener_admin_mode(browser: httpx.Client, password: str) -> bool:
    login = browser.post("/s/login", data={"login": "demo", "password": "demo", "_format": "json"})
    admin = browser.post("/s/stats", data={"adminpwd": password, "_format": "json"})
    return login.json()["success"] and admin.json()["success"]
