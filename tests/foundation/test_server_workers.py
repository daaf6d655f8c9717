"""The server survives its workers (issue 11, item 4): a killed worker is replaced, SIGTERM drains.

Real granian processes on the test database, so PostgreSQL only (several processes on one database).
"""

import os
import signal
import threading
import time

import httpx
import pytest
from django.db import connection

from shortener.models import ShortLink
from tests.polling import eventually
from tests.servers import Server, child_pids, running, served_database_url, server_env
from tests.shortener.factories import ShortLinkFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

FLUSH_SECONDS = 0.5


@pytest.fixture
def link(user) -> ShortLink:
    return ShortLinkFactory(owner=user, url="https://example.com/target")


def hammer(url: str, stop: threading.Event, results: list, prefix: str) -> None:
    """Follow the link with a new User-Agent each time (each one a new visitor) until told to stop."""
    with httpx.Client(timeout=5) as client:
        n = 0
        while not stop.is_set():
            n += 1
            try:
                status = client.get(url, headers={"User-Agent": f"Mozilla/5.0 {prefix}-{n}"}).status_code
            except httpx.TransportError:
                status = None
            results.append((time.monotonic(), status))


def test_a_killed_worker_is_replaced_and_the_service_keeps_answering(link):
    server = Server(server_env(served_database_url(connection), SHORTENER_VISIT_FLUSH_SECONDS=str(FLUSH_SECONDS)))
    try:
        stop, results = threading.Event(), []
        threads = [
            threading.Thread(target=hammer, args=(f"{server.url}/s/{link.code}", stop, results, f"t{i}"))
            for i in range(4)
        ]
        for thread in threads:
            thread.start()
        # Traffic flows through both workers before one of them dies.
        eventually(lambda: sum(status == 302 for _, status in results) >= 50, message=server.output)
        victim, survivor = server.worker_pids()
        # Its visit writer process (started at its first flush) holds the batch being written.
        writers = eventually(lambda: child_pids(victim), message=server.output)

        os.kill(victim, signal.SIGKILL)
        killed_at = time.monotonic()
        replacements: set[int] = set()

        def replaced() -> bool:
            # One read of the worker list: two reads could straddle a change and disagree.
            pids = set(server.worker_pids())
            replacements.clear()
            replacements.update(pids - {victim, survivor})
            return pids == {survivor, *replacements} and len(replacements) == 1

        eventually(replaced, message=server.output)
        # Until the replacement has loaded the app (a worker still loading misses a SIGTERM), with
        # enough answers since the kill to show the service kept answering meanwhile.
        (replacement,) = replacements
        eventually(lambda: server.worker_has_loaded_the_app(replacement), timeout=60, message=server.output)
        eventually(lambda: sum(at > killed_at + 0.5 for at, _ in results) >= 200, message=server.output)
        stop.set()
        for thread in threads:
            thread.join()

        assert server.process.poll() is None, server.output()
        assert len(server.worker_pids()) == 2 and victim not in server.worker_pids()
        # The killed worker's pipe closed, so its writer finished its batch and exited: no orphan.
        eventually(lambda: not any(running(pid) for pid in writers), timeout=10, message=server.output)
        after = [status for at, status in results if at > killed_at + 0.5]
        assert after and all(status == 302 for status in after)
        made = sum(1 for _, status in results if status == 302)
        assert server.terminate() == 0
        link.refresh_from_db()
        lost = made - link.counter
        duration = results[-1][0] - results[0][0]
        print(f"{made} visits made in {duration:.1f} s, {link.counter} counted, {lost} lost with the killed worker")
        # What the killed worker had buffered: its visits since its last flush began, i.e. at
        # most one flush interval plus the batch being written, of its share of the traffic.
        assert 0 <= lost <= made / duration * 2 * FLUSH_SECONDS
    finally:
        server.stop()


def test_sigterm_drains_and_flushes_the_visit_buffer(link):
    # A flush interval longer than the test: only the flush at exit can write these visits.
    # One worker, so that its answer to /healthz proves it has loaded the app: a granian worker still
    # loading when SIGTERM arrives misses the stop and never exits (seen in CI with two workers).
    server = Server(server_env(served_database_url(connection), SHORTENER_VISIT_FLUSH_SECONDS="60"), workers=1)
    try:
        with httpx.Client(timeout=5) as client:
            statuses = [
                client.get(f"{server.url}/s/{link.code}", headers={"User-Agent": f"Mozilla/5.0 v{n}"}).status_code
                for n in range(50)
            ]
        link.refresh_from_db()
        assert link.counter == 0

        assert server.terminate() == 0

        link.refresh_from_db()
        assert statuses == [302] * 50
        assert link.counter == 50
    finally:
        server.stop()
