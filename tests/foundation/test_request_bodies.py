"""Request bodies against a real server, as `make run` serves (issue 20, items 1, 3 and 7).

Slow bodies hold no request thread, a body that does not arrive in time is answered 408, one over
its interface's limit 413 before it is read, and chunked bodies are read, on every interface.
granian serves config.asgi on a throwaway SQLite database; the clients are raw sockets, so that
a body can be sent slowly, endlessly or chunked, and the answer read while it is still being sent.
"""

import json
import resource
import socket
import threading
import time
from contextlib import closing, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from tests.servers import Server, free_port, manage, server_env

BODY_TIMEOUT_SECONDS = 2
HUNDRED_MB = 100 * 1024 * 1024
SETUP = """
import json
from django.contrib.auth import get_user_model
from pastes.models import ApiKey as PastesKey
from reports.models import ApiKey as ReportsKey
from shortener.models import ApiKey as ShortenerKey
from shortener.models import ShortLink
user = get_user_model().objects.create_user(username="bodies")
link = ShortLink.objects.create(owner=user, url="https://example.com/target", code="bodies1")
keys = {"reports": ReportsKey, "pastes": PastesKey, "shortener": ShortenerKey}
print(json.dumps({name: model.issue(user=user)[1] for name, model in keys.items()}))
"""
# Each interface's path with a body, and the error shape it answers in.
INTERFACES = {
    "A": ("/api/v1/reports", lambda body, status: body["status"] == status and body["message"]),
    "B": ("/pastes/create", lambda body, status: body["code"] == status and body["message"]),
    "C": ("/s/a", lambda body, status: body["success"] is False and body["msg"]),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    database = tmp_path_factory.mktemp("bodies") / "db.sqlite3"
    env = server_env(
        f"sqlite:///{database}",
        REQUEST_BODY_TIMEOUT=str(BODY_TIMEOUT_SECONDS),
        REPORTS_ANALYSIS_WAIT="0",
        REPORTS_ALLOW_PRIVATE_NETWORKS="1",  # a report of a local address is queued, not refused
        # The slow clients below all come from 127.0.0.1; the create limits are not what is tested.
        SHORTENER_ANONYMOUS_BURST="1000",
    )
    manage(env, "migrate", "-v0")
    keys = json.loads(manage(env, "shell", "-c", SETUP).splitlines()[-1])
    # Room for 500 slow connections and the probes beside them.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, 4096), hard), hard))
    server = Server(env, workers=2, threads=4)
    server.keys = keys
    yield server
    server.stop()


def request_head(path: str, headers: dict[str, str]) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Accept: application/json"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def read_response(sock: socket.socket, timeout: float = 15) -> tuple[int, dict[str, str], bytes]:
    """Read one response (Content-Length delimited), whatever the client is still sending."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed without an answer: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)}
    while len(body) < int(headers.get("content-length", 0)):
        chunk = sock.recv(65536)
        assert chunk
        body += chunk
    return int(status_line.split()[1]), headers, body


def send_until_answered(sock: socket.socket, total: int, *, chunked: bool) -> None:
    """Send `total` bytes of body in 1 MiB pieces (in chunked encoding if asked) until the server stops reading."""
    piece = b"x" * (1024 * 1024)
    framed = f"{len(piece):x}\r\n".encode() + piece + b"\r\n" if chunked else piece
    sent = 0
    with suppress(OSError):  # the server answered and closed: what the test wants
        while sent < total:
            sock.sendall(framed)
            sent += len(piece)


def test_500_slow_bodies_leave_other_clients_answered_and_are_answered_408(server):
    slow = []
    for _ in range(500):
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        sock.sendall(
            request_head("/s/login", {"Content-Type": "application/x-www-form-urlencoded", "Content-Length": "100000"})
        )
        slow.append(sock)
    stop = threading.Event()

    def trickle() -> None:
        while not stop.wait(0.5):
            for sock in slow:
                with suppress(OSError):
                    sock.send(b"a")

    trickler = threading.Thread(target=trickle, daemon=True)
    trickler.start()
    try:
        answers = []
        with httpx.Client(timeout=5) as client:
            deadline = time.monotonic() + BODY_TIMEOUT_SECONDS * 0.8
            while time.monotonic() < deadline:
                answers.append(client.get(f"{server.url}/healthz").status_code)
                answers.append(client.get(f"{server.url}/s/bodies1").status_code)
        # Every probe answered while all 500 bodies were still arriving (none has timed out yet).
        assert set(answers) == {200, 302}
        assert len(answers) >= 10

        statuses = [read_response(sock)[0] for sock in slow]
    finally:
        stop.set()
        trickler.join()
        for sock in slow:
            sock.close()
    assert statuses == [408] * 500


@pytest.mark.parametrize("interface", INTERFACES)
def test_a_body_that_does_not_arrive_in_time_is_answered_408_in_the_interface_shape(server, interface):
    path, in_shape = INTERFACES[interface]
    with closing(socket.create_connection(("127.0.0.1", server.port))) as sock:
        sock.sendall(request_head(path, {"Content-Type": "application/json", "Content-Length": "100"}) + b'{"na')

        status, headers, body = read_response(sock)

        assert status == 408
        assert in_shape(json.loads(body), 408)
        assert headers["connection"] == "close"
        assert sock.recv(1) == b""  # closed: the rest of the body is never read


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
@pytest.mark.parametrize("interface", INTERFACES)
def test_a_100_mb_body_is_refused_413_in_the_interface_shape_without_reading_it(server, interface, chunked):
    path, in_shape = INTERFACES[interface]
    memory_before = server.workers_rss_kib()
    framing = {"Transfer-Encoding": "chunked"} if chunked else {"Content-Length": str(HUNDRED_MB)}
    with closing(socket.create_connection(("127.0.0.1", server.port))) as sock:
        sock.sendall(request_head(path, {"Content-Type": "application/json", **framing}))
        sender = threading.Thread(target=send_until_answered, args=(sock, HUNDRED_MB), kwargs={"chunked": chunked})
        sender.start()

        status, headers, body = read_response(sock)
        with suppress(OSError):  # already closed by the server
            sock.shutdown(socket.SHUT_RDWR)
        sender.join()

    assert status == 413
    assert in_shape(json.loads(body), 413)
    assert headers["connection"] == "close"
    # What the limit let in (16 MiB at most, for B) was spooled to disk, not held: well below 100 MB.
    assert server.workers_rss_kib() - memory_before < 30 * 1024


def chunked_post(server, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict]:
    with closing(socket.create_connection(("127.0.0.1", server.port))) as sock:
        sock.sendall(request_head(path, {"Transfer-Encoding": "chunked", **headers}))
        for start in range(0, len(body), 7):  # several chunks
            piece = body[start : start + 7]
            sock.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        sock.sendall(b"0\r\n\r\n")
        status, _, answer = read_response(sock)
    return status, json.loads(answer)


def test_a_chunked_json_body_creates_a_paste(server):
    body = json.dumps({"name": "chunked", "content": "print('hello')\n"}).encode()

    status, answer = chunked_post(
        server, "/pastes/create", body, {"Content-Type": "application/json", "Authorization": server.keys["pastes"]}
    )

    assert status == 200, answer
    read = httpx.get(f"{server.url}/pastes/paste/@{answer['id']}", headers={"Authorization": server.keys["pastes"]})
    assert read.json()["name"] == "chunked"


class Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<!DOCTYPE html><title>A page</title>")

    do_HEAD = do_GET

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_a_chunked_json_body_creates_a_report(server):
    site = ThreadingHTTPServer(("127.0.0.1", free_port()), Page)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    page = f"http://127.0.0.1:{site.server_port}/chunked"
    body = json.dumps({"url": page}).encode()

    status, answer = chunked_post(
        server,
        "/api/v1/reports",
        body,
        {"Content-Type": "application/json", "Authorization": f"Bearer {server.keys['reports']}"},
    )

    site.shutdown()
    assert status in (201, 202), answer
    assert answer["data"]["url"] == page


def test_a_chunked_form_body_shortens_a_link(server):
    body = b"lsturl=https%3A%2F%2Fexample.com%2Fchunked&_format=json"

    status, answer = chunked_post(
        server,
        "/s/a",
        body,
        {"Content-Type": "application/x-www-form-urlencoded", "Authorization": f"Bearer {server.keys['shortener']}"},
    )

    assert status == 200, answer
    assert answer["success"] is True
    assert answer["url"] == "https://example.com/chunked"
