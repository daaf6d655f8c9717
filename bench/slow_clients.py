"""Scenario "beside slow clients": the fast paths while 500 connections trickle request bodies.

500 connections from one address each send `POST /s/login` with `Content-Length: 100000` and
then one byte a second, as the attack of issue 20 did (16 of them starved granian's WSGI threads
and /healthz answered nothing). A connection answered 408 (REQUEST_BODY_TIMEOUT) is opened
again at once, so that 500 stay open while wrk measures the redirect and /healthz.
"""

import resource
import select
import socket
import threading
from contextlib import contextmanager, suppress
from pathlib import Path
from urllib.parse import urlsplit

from bench.harness import WrkResult, run_wrk

CONNECTIONS = 500
HEAD = (
    b"POST /s/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
    b"Content-Length: 100000\r\n\r\n"
)
# (scenario name, seed data key, p99 target in ms)
MEASURED = [
    ("C redirect GET /<code>", "redirect_paths", 100),
    ("GET /healthz", "healthz_paths", 100),
]


class SlowClients:
    def __init__(self, address: tuple[str, int]) -> None:
        self.address = address
        self.sockets = [self._open() for _ in range(CONNECTIONS)]
        self.reopened = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._trickle, daemon=True)
        self._thread.start()

    def _open(self) -> socket.socket:
        sock = socket.create_connection(self.address, timeout=10)
        sock.sendall(HEAD)
        return sock

    def _trickle(self) -> None:
        while not self._stop.wait(1):
            answered, _, _ = select.select(self.sockets, [], [], 0)
            for index, sock in enumerate(self.sockets):
                if sock in answered:  # 408 (or closed): an attacker opens another
                    sock.close()
                    with suppress(OSError):
                        self.sockets[index] = self._open()
                        self.reopened += 1
                    continue
                with suppress(OSError):
                    sock.send(b"a")

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        for sock in self.sockets:
            sock.close()


@contextmanager
def slow_clients(url: str):
    # select() and 500 sockets need more descriptors than the usual soft limit of 1024 allows.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, 4096), hard), hard))
    parts = urlsplit(url)
    clients = SlowClients((parts.hostname, parts.port))
    try:
        yield clients
    finally:
        clients.close()


def run(*, url: str, data: dict, tmpdir: Path, wrk: dict) -> tuple[list[tuple[str, WrkResult, float]], list[str]]:
    """Measure MEASURED while the slow clients are connected; return (name, result, p99 target) rows and notes."""
    paths = {
        "redirect_paths": [f"{data['shortener_path']}{code}" for code in data["codes"]],
        "healthz_paths": ["/healthz"],
    }
    files = {}
    for _, key, _ in MEASURED:
        files[key] = tmpdir / f"slow-{key}.txt"
        files[key].write_text("\n".join(paths[key]) + "\n")
    rows = []
    # The same paths without them first: on a shared machine, the difference is what counts.
    for name, key, _ in MEASURED:
        result = run_wrk(url, script="paths.lua", args=[str(files[key])], **wrk)
        rows.append((f"{name} (no slow clients)", result, None))
    with slow_clients(url) as clients:
        for name, key, target in MEASURED:
            result = run_wrk(url, script="paths.lua", args=[str(files[key])], **wrk)
            rows.append((f"{name} (500 slow clients)", result, target))
        note = (
            f"slow clients: {CONNECTIONS} connections trickling a body a byte a second, "
            f"{clients.reopened} answered 408 (or closed) and opened again"
        )
    return rows, [note]
