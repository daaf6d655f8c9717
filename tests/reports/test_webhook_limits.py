"""A webhook delivery ends within its deadline and reads a few KB of the answer, whatever the receiver sends."""

import socketserver
import threading
import time
import tracemalloc
import zlib
from contextlib import suppress
from functools import cache

import pytest

from reports import webhooks
from reports.models import Webhook, WebhookDelivery
from tests.reports.factories import ProjectFactory
from tests.servers import free_port

pytestmark = pytest.mark.django_db

GIB = 1024**3
CHUNK = b"\0" * (64 * 1024)


@cache
def gzip_bomb(unpacked: int) -> bytes:
    """`unpacked` zero bytes, gzipped (about a thousandth of that)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    return b"".join([*(packer.compress(CHUNK) for _ in range(unpacked // len(CHUNK))), packer.flush()])


class Hostile(socketserver.ThreadingTCPServer):
    """Answers a POST by its path: /huge 1 GiB, /bomb a gzip bomb, /trickle-body and /trickle-headers a
    byte every 0.2 s (for 20 s at most), /long-headers 20 KB of headers."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", free_port()), Answer)
        self.bomb = gzip_bomb(200 * 1024 * 1024)
        self.stopping = threading.Event()
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{path}"

    def close(self) -> None:
        self.stopping.set()
        self.shutdown()
        self.server_close()


class Answer(socketserver.StreamRequestHandler):
    server: Hostile

    def handle(self) -> None:
        path = self.rfile.readline().split()[1].decode()
        length = 0
        while (line := self.rfile.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        self.rfile.read(length)
        with suppress(OSError):  # the delivery hung up, as it should
            self.answer(path)

    def trickle(self, data: bytes) -> None:
        for byte in data:
            if self.server.stopping.wait(0.2):
                return
            self.wfile.write(bytes([byte]))

    def answer(self, path: str) -> None:
        write = self.wfile.write
        if path == "/huge":
            write(f"HTTP/1.1 200 OK\r\nContent-Length: {GIB}\r\n\r\n".encode())
            for _ in range(GIB // len(CHUNK)):
                write(CHUNK)
        elif path == "/bomb":
            bomb = self.server.bomb
            write(f"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: {len(bomb)}\r\n\r\n".encode())
            write(bomb)
        elif path == "/trickle-body":
            write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
            self.trickle(b"x" * 100)
        elif path == "/trickle-headers":
            self.trickle(b"HTTP/1.1 200 OK\r\nX-Slow: " + b"y" * 100 + b"\r\n\r\n")
        elif path == "/long-headers":
            write(b"HTTP/1.1 200 OK\r\n" + b"X-Padding: " + b"z" * 20_000 + b"\r\nContent-Length: 0\r\n\r\n")


@pytest.fixture
def hostile(settings):
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = True  # the receiver is on loopback
    settings.REPORTS_WEBHOOK_TIMEOUT = 1.0
    settings.REPORTS_WEBHOOK_MAX_ATTEMPTS = 1
    server = Hostile()
    yield server
    server.close()


def deliver(user, url: str) -> tuple[WebhookDelivery, float, int]:
    """Send one event to `url`; the delivery, the seconds it took and the peak memory it allocated."""
    project = ProjectFactory(owner=user)
    Webhook.objects.create(project=project, url=url, events=["report.done"], secret="a-receivers-secret-0123456789")
    tracemalloc.start()
    started = time.monotonic()
    try:
        webhooks.send_event(project, "report.done", {"id": 1})  # the immediate backend delivers it now
        took = time.monotonic() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return WebhookDelivery.objects.get(), took, peak


@pytest.mark.parametrize("path", ["/huge", "/bomb"])
def test_a_huge_or_compressed_answer_is_not_read(hostile, user, path):
    delivery, took, peak = deliver(user, hostile.url(path))

    assert (delivery.status, delivery.response_status, delivery.error) == ("delivered", 200, "")
    assert peak < 100 * 1024 * 1024, f"the delivery took {peak / 2**20:.0f} MB"
    assert took < 5


def test_an_answer_trickling_its_body_does_not_hold_the_delivery(hostile, user):
    delivery, took, _ = deliver(user, hostile.url("/trickle-body"))

    assert (delivery.status, delivery.response_status) == ("delivered", 200)
    assert took < 1.5


def test_an_answer_trickling_its_headers_ends_at_the_deadline(hostile, user):
    delivery, took, _ = deliver(user, hostile.url("/trickle-headers"))

    assert (delivery.status, delivery.response_status) == ("failed", None)
    assert delivery.error == "The receiver did not answer within 1 second."
    assert took < 2.5  # the 1-second deadline, plus the task's own work


def test_headers_longer_than_the_cap_fail_the_attempt(hostile, user):
    delivery, _, _ = deliver(user, hostile.url("/long-headers"))

    assert (delivery.status, delivery.error) == ("failed", "The receiver's answer is longer than 8192 bytes.")
