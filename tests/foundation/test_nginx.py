"""The documented deployment for plain WSGI: deploy/nginx.conf in front of granian's WSGI (issue 20, item 1).

Under granian's WSGI interface a slow body holds a request thread for as long as it trickles
(16 such connections starved every thread and /healthz answered nothing). The deployment
docs put a buffering nginx in front of such a server: this starts Debian's nginx as a
non-root process, with its own prefix, temporary directories and a port of TEST_SERVER_PORTS,
configured by the shipped deploy/nginx.conf (only its `listen` and upstream `server` lines
changed), and sends the slow clients through it.
"""

import json
import os
import re
import resource
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from contextlib import suppress
from pathlib import Path

import httpx
import pytest

from tests.foundation.test_request_bodies import read_response, request_head
from tests.polling import eventually
from tests.reports.required import skip_or_fail
from tests.servers import BASE_DIR, Server, free_port, manage, server_env

NGINX = "/usr/sbin/nginx"
SHIPPED = BASE_DIR / "deploy" / "nginx.conf"
SLOW_CLIENTS = 500
SETUP = """
from django.contrib.auth import get_user_model
from shortener.models import ShortLink
user = get_user_model().objects.create_user(username="nginx")
ShortLink.objects.create(owner=user, url="https://example.com/target", code="nginx1")
"""
NOBODY = 65534


def nginx_config(directory: Path, *, port: int, upstream_port: int) -> str:
    """deploy/nginx.conf inside a minimal main configuration that needs no root and writes only to `directory`."""
    shipped = SHIPPED.read_text()
    server = shipped.replace("listen 80;", f"listen 127.0.0.1:{port};")
    server = server.replace("server 127.0.0.1:8000;", f"server 127.0.0.1:{upstream_port};")
    assert server.count(str(port)) == 1 and server.count(str(upstream_port)) == 1, "the shipped lines moved"
    temp = {name: directory / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for path in temp.values():
        path.mkdir()
    return f"""
daemon off;
master_process on;
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {temp["body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fastcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
{server}
}}
"""


class Nginx:
    def __init__(self, upstream_port: int) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="nginx-"))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = self.directory / "nginx.conf"
        config.write_text(nginx_config(self.directory, port=self.port, upstream_port=upstream_port))
        # Not as root, even when the tests are: the whole prefix belongs to the user nginx runs as.
        user = {}
        if os.geteuid() == 0:
            for path in [self.directory, *self.directory.rglob("*")]:
                os.chown(path, NOBODY, NOBODY)
            user = {"user": NOBODY, "group": NOBODY, "extra_groups": []}
        self.process = subprocess.Popen(
            [NGINX, "-p", str(self.directory), "-c", str(config), "-e", str(self.directory / "error.log")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
            **user,
        )

        def answers() -> bool:
            assert self.process.poll() is None, self.log()
            with suppress(httpx.TransportError):
                return httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200
            return False

        eventually(answers, timeout=60, message=lambda: f"nginx did not answer:\n{self.log()}")

    def log(self) -> str:
        path = self.directory / "error.log"
        return path.read_text() if path.exists() else ""

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)


@pytest.fixture(scope="module")
def proxied(tmp_path_factory):
    if not os.access(NGINX, os.X_OK):
        skip_or_fail(f"{NGINX} is missing: apt-get install nginx-light", "REQUIRE_NGINX")
    database = tmp_path_factory.mktemp("nginx") / "db.sqlite3"
    # The documented deployment: client addresses and HTTPS from the proxy's headers.
    env = server_env(f"sqlite:///{database}", BEHIND_PROXY="1", NUM_PROXIES="1")
    manage(env, "migrate", "-v0")
    manage(env, "shell", "-c", SETUP)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, 4096), hard), hard))
    # granian's WSGI interface with 2 workers x 2 threads: 4 slow bodies would hold all of it unprotected.
    # A generous start-up deadline: in the whole suite on a busy machine, 30 s was once too short.
    app = Server(env, workers=2, threads=2, interface="wsgi", ready_timeout=120)
    nginx = None
    try:
        nginx = Nginx(app.port)
        yield nginx
    finally:
        if nginx is not None:
            nginx.stop()
        app.stop()


def slow_socket(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(
        request_head("/s/login", {"Content-Type": "application/x-www-form-urlencoded", "Content-Length": "100000"})
    )
    return sock


def test_the_shipped_configuration_is_valid_nginx(proxied):
    result = subprocess.run(
        [NGINX, "-t", "-p", str(proxied.directory), "-c", str(proxied.directory / "nginx.conf")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    shipped = SHIPPED.read_text()
    # What the deployment docs promise of it.
    for directive in ("proxy_request_buffering on;", "client_body_timeout 10s;", "client_max_body_size 17m;"):
        assert directive in shipped


def test_500_slow_bodies_through_nginx_leave_other_clients_answered_promptly(proxied):
    slow = [slow_socket(proxied.port) for _ in range(SLOW_CLIENTS)]
    stop = threading.Event()

    def trickle() -> None:
        while not stop.wait(0.5):
            for sock in slow:
                with suppress(OSError):
                    sock.send(b"a")

    trickler = threading.Thread(target=trickle, daemon=True)
    trickler.start()
    try:
        times, statuses = [], []
        with httpx.Client(timeout=5) as client:
            for _ in range(20):
                for path in ("/healthz", "/s/nginx1"):
                    started = time.monotonic()
                    statuses.append(client.get(f"{proxied.url}{path}").status_code)
                    times.append(time.monotonic() - started)
    finally:
        stop.set()
        trickler.join()
        for sock in slow:
            sock.close()
    # Every probe answered, while 500 bodies (125 times the app's 4 threads) were still arriving.
    assert statuses == [200, 302] * 20
    # Promptly: not one waited for a thread (a held thread would make it wait for the 10 s timeout).
    assert max(times) < 2, sorted(times)[-5:]


def test_a_body_that_stops_arriving_is_answered_408_or_closed_by_nginx(proxied):
    sock = slow_socket(proxied.port)
    sock.sendall(b"a" * 100)  # then nothing more
    started = time.monotonic()
    try:
        status, _, _ = read_response(sock, timeout=30)
    except AssertionError:
        status = None  # closed without an answer: as good, the app never saw it
    finally:
        sock.close()
    waited = time.monotonic() - started
    assert status in (408, None)
    timeout = float(re.search(r"client_body_timeout (\d+)s;", SHIPPED.read_text()).group(1))
    assert timeout - 1 < waited < timeout + 10


def test_a_complete_body_reaches_the_app(proxied):
    # A JSON client's wrong login: the app answered (in C's shape), so the body went through whole.
    response = httpx.post(
        f"{proxied.url}/s/login", data={"username": "nginx", "password": "wrong", "_format": "json"}, timeout=10
    )
    assert response.status_code in (400, 401, 403), response.text
    assert json.loads(response.text)["success"] is False
