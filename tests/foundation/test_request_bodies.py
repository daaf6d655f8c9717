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

from tests.logs import assert_no_traceback
from tests.servers import Server, free_port, manage, server_env

# Long enough for the probes below to make five rounds while 500 bodies trickle in, even with the
# other CI pass running beside this one on two cores (2 s gave one round under heavy load).
BODY_TIMEOUT_SECONDS = 4
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


@pytest.fixture(autouse=True)
def _log_without_tracebacks(server):
    # What the server logged during the test (issue 50, regression 3): refusals are one line each.
    logged_before = len(server.log_text())
    yield
    assert_no_traceback(server.log_text()[logged_before:])


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


# Every endpoint of A, B and C that takes a body, each with a body it answers specifically (an
# invalid value it names, a wrong password), so that a body read as empty would be answered
# otherwise. {report}, {paste} and {code} are the user's; "session" requests are signed in with
# a CSRF token, as the site's forms send them.
FORM = "application/x-www-form-urlencoded"
MULTIPART_BOUNDARY = "chunkedboundary"
EVERY_ENDPOINT = [
    ("A", "POST", "/api/v1/reports", "application/json", b'{"url": "not a url"}'),
    ("A", "PUT", "/api/v1/reports/{report}", "application/json", b'{"privacy": 7}'),
    ("A", "PATCH", "/api/v1/reports/{report}", "application/json", b'{"privacy": 7}'),
    ("A", "PATCH", "/api/v1/reports/{report}", FORM, b"privacy=7"),
    ("A", "DELETE", "/api/v1/reports/999999", "application/json", b"{}"),
    ("A", "DELETE", "/api/v1/projects/no-such-project.example", "application/json", b"{}"),
    ("B", "POST", "/pastes/create", "application/json", b'{"name": "n", "content": "c", "exposure": "bogus"}'),
    ("B", "PATCH", "/pastes/edit/{paste}", "application/json", b'{"exposure": "bogus"}'),
    ("B", "DELETE", "/pastes/delete/no-such-paste", "application/json", b"{}"),
    ("C", "POST", "/s/a", FORM, b"lsturl=not+a+url&_format=json"),
    ("C", "POST", "/s/a.json", "application/json", b'{"lsturl": "not a url"}'),
    ("C", "POST", "/s/login", FORM, b"login=bodies&password=wrong&_format=json"),
    ("C", "POST", "/s/stats", FORM, b"adminpwd=wrong&_format=json"),
    ("C", "POST", "/s/tokens", FORM, b"name=chunked-token&_format=json"),
    (
        "C",
        "POST",
        "/s/import",
        f"multipart/form-data; boundary={MULTIPART_BOUNDARY}",
        (
            f'--{MULTIPART_BOUNDARY}\r\nContent-Disposition: form-data; name="_format"\r\n\r\njson\r\n'
            f'--{MULTIPART_BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="links.json"\r\n'
            f'Content-Type: application/json\r\n\r\n[{{"url": "not a url"}}]\r\n--{MULTIPART_BOUNDARY}--\r\n'
        ).encode(),
    ),
]
AUTHORIZATION = {"A": "Bearer {reports}", "B": "{pastes}"}


@pytest.fixture(scope="module")
def signed_in(server) -> dict[str, str]:
    """Headers of a signed-in browser session of the fixture's user, CSRF token included."""
    manage(server.env, "shell", "-c", SET_PASSWORD)
    with httpx.Client(base_url=server.url) as client:
        client.get("/s/login")  # the page sets the CSRF cookie
        token = client.cookies["csrftoken"]
        answer = client.post(
            "/s/login",
            data={"login": "bodies", "password": "bodies-password", "_format": "json"},
            headers={"X-CSRFToken": token, "Referer": f"{server.url}/s/login"},
        )
        assert answer.json()["success"] is True, answer.text
        cookies = "; ".join(f"{name}={value}" for name, value in client.cookies.items())
        return {"Cookie": cookies, "X-CSRFToken": client.cookies["csrftoken"], "Referer": f"{server.url}/s/"}


SET_PASSWORD = """
from django.contrib.auth import get_user_model
user = get_user_model().objects.get(username="bodies")
user.set_password("bodies-password")
user.save()
"""


@pytest.fixture(scope="module")
def owned(server) -> dict[str, str]:
    paste = httpx.post(
        f"{server.url}/pastes/create",
        json={"name": "mine", "content": "x"},
        headers={"Authorization": server.keys["pastes"]},
    ).json()["id"]
    # A report to PUT and PATCH, of a page on loopback.
    site = ThreadingHTTPServer(("127.0.0.1", free_port()), Page)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    report = httpx.post(
        f"{server.url}/api/v1/reports",
        json={"url": f"http://127.0.0.1:{site.server_port}/owned"},
        headers={"Authorization": f"Bearer {server.keys['reports']}", "Accept": "application/json"},
    )
    site.shutdown()
    assert report.status_code in (201, 202), report.text
    report = report.json()["data"]["id"]
    return {"paste": paste, "report": report, "code": "bodies1"}


def send(server, method: str, path: str, headers: dict[str, str], body: bytes, *, chunked: bool) -> tuple[int, bytes]:
    framing = {"Transfer-Encoding": "chunked"} if chunked else {"Content-Length": str(len(body))}
    head = request_head(path, {**headers, **framing}).replace(b"POST ", f"{method} ".encode(), 1)
    with closing(socket.create_connection(("127.0.0.1", server.port))) as sock:
        sock.sendall(head)
        if chunked:
            for start in range(0, len(body), 5):
                piece = body[start : start + 5]
                sock.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            sock.sendall(b"0\r\n\r\n")
        else:
            sock.sendall(body)
        status, _, answer = read_response(sock)
    return status, answer


@pytest.mark.parametrize(
    ("interface", "method", "path", "content_type", "body"),
    EVERY_ENDPOINT,
    ids=[f"{method} {path} {ctype.split(';')[0]}" for _, method, path, ctype, _ in EVERY_ENDPOINT],
)
def test_every_endpoint_reads_a_chunked_body_as_it_reads_a_sized_one(
    server, signed_in, owned, interface, method, path, content_type, body
):
    path = path.format(**owned)
    headers = {"Content-Type": content_type}
    if interface in AUTHORIZATION:
        headers["Authorization"] = AUTHORIZATION[interface].format(**server.keys)
    else:
        headers.update(signed_in)

    sized = send(server, method, path, headers, body, chunked=False)
    chunked = send(server, method, path, headers, body, chunked=True)
    empty = send(server, method, path, headers, b"", chunked=False)

    # Never a 411, and the same answer as with Content-Length; not the empty body's, so it was read.
    assert chunked[0] != 411
    assert chunked[0] == sized[0], (chunked, sized)
    assert drop_volatile(chunked[1]) == drop_volatile(sized[1])
    if method != "DELETE":  # deletes take no body: there, the same answer is all there is to see
        assert chunked != empty, (chunked, empty)


def drop_volatile(answer: bytes) -> object:
    """The answer without what differs between two identical requests (new ids, tokens, times)."""
    with suppress(ValueError):
        data = json.loads(answer)
        if isinstance(data, dict):
            return {key: value for key, value in data.items() if key not in ("id", "token", "created_at")}
        return data
    return answer


MALFORMED_CHUNKS = b"zzzz\r\nabc\r\n0\r\n\r\n"  # "zzzz" is no chunk size (issue 49, item 6)
SHAPES = {interface: in_shape for interface, (_, in_shape) in INTERFACES.items()}


@pytest.mark.parametrize(
    ("interface", "method", "path", "content_type"),
    [(interface, method, path, content_type) for interface, method, path, content_type, _ in EVERY_ENDPOINT],
    ids=[f"{method} {path} {ctype.split(';')[0]}" for _, method, path, ctype, _ in EVERY_ENDPOINT],
)
def test_a_malformed_chunked_body_is_a_400_in_the_interface_shape(
    server, signed_in, owned, interface, method, path, content_type
):
    # granian reported the body as a disconnect; the front answered nothing, and granian a bare 500.
    headers = {"Content-Type": content_type, "Transfer-Encoding": "chunked"}
    if interface in AUTHORIZATION:
        headers["Authorization"] = AUTHORIZATION[interface].format(**server.keys)
    else:
        headers.update(signed_in)
    head = request_head(path.format(**owned), headers).replace(b"POST ", f"{method} ".encode(), 1)
    with closing(socket.create_connection(("127.0.0.1", server.port))) as sock:
        sock.sendall(head + MALFORMED_CHUNKS)

        status, answer_headers, body = read_response(sock)

    assert status == 400, body
    assert SHAPES[interface](json.loads(body), 400)
    assert answer_headers["connection"] == "close"


@pytest.mark.parametrize("path", ["/s/stats", "/pastes/new", "/reports/", "/admin/"])
def test_a_signed_out_page_with_a_long_query_sends_to_sign_in_when_served(server, path):
    # Issue 50, regression 2, as `make run` serves it.
    query = "&".join(f"a{n}=1" for n in range(3000))

    response = httpx.get(f"{server.url}{path}?{query}")

    assert response.status_code == 302
    assert response.headers["location"] in ("/s/login", "/accounts/login/", "/admin/login/")


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/s/bodies1", {"Host": "evil.example"}),
        ("/s/bodies1?" + "&".join(f"a{n}=1" for n in range(3000)), {}),
        ("/s/bodies1", {"Cookie": b'sessionid="\xff"; csrftoken=;;'}),
        ("/s/%00", {}),
        ("/pastes/?" + "&".join(f"a{n}=1" for n in range(3000)), {"Accept": "application/json"}),
    ],
    ids=["bad host", "3,000 parameters", "bad cookies", "nul in the path", "3,000 parameters on B"],
)
def test_hostile_reads_of_the_served_stack_are_refused_in_at_most_one_line(server, path, headers):
    # The short link is answered by the redirect shortcut when it can be (config.asgi): it declines
    # what it cannot answer, and Django refuses it; the autouse fixture reads the log for tracebacks.
    logged_before = len(server.log_text())

    response = httpx.get(f"{server.url}{path}", headers=headers)

    assert response.status_code < 500, response.text[:300]
    time.sleep(0.2)  # the worker's log line is written after the answer
    logged = [line for line in server.log_text()[logged_before:].splitlines() if not line.startswith("[INFO]")]
    assert len(logged) <= 1, logged  # granian's own [INFO] lines (a worker starting) are not the request's
