"""The visit writer process: the web process's batches written by a process of its own, and none lost when it dies."""

import datetime
import os
import signal
import sys

import pytest
from django.db import DatabaseError, connection

from shortener.fastpath.visit_writer import VisitWriterProcess
from shortener.fastpath.visits import VisitBuffer
from shortener.models import ShortLink, Visit
from tests.polling import eventually
from tests.servers import running, served_database_url
from tests.shortener.factories import ShortLinkFactory

# The writer process connects on its own: it sees only what the test has committed.
pytestmark = pytest.mark.django_db(transaction=True)

TODAY = datetime.date(2026, 5, 1)


@pytest.fixture(autouse=True)
def _writer_uses_the_test_database(monkeypatch, settings):
    """The writer process reads DATABASE_URL, as the web process did: here, the test's database."""
    if connection.vendor == "postgresql":
        url = served_database_url(connection)
    else:
        url = f"sqlite:///{connection.settings_dict['NAME']}"
    monkeypatch.setenv("DATABASE_URL", url)
    settings.SHORTENER_VISIT_WRITER_PROCESS = True


def flushed_by_hand() -> VisitBuffer:
    """A buffer without its background flusher (and that flusher's own writer), which would race the test's flushes."""
    buffer = VisitBuffer()
    buffer.background = False
    return buffer


@pytest.fixture
def link() -> ShortLink:
    return ShortLinkFactory(code="abc")


@pytest.fixture
def writer():
    """A writer process (started at its first batch), closed after the test whatever happened."""
    writer = VisitWriterProcess()
    yield writer
    writer.close()


def counter(link: ShortLink) -> int:
    link.refresh_from_db()
    return link.counter


def test_the_writer_process_writes_a_batch_and_says_how_many_visits_were_new(link, writer):
    buffer = flushed_by_hand()
    buffer.add((link.pk, "a" * 32, TODAY), ("Firefox", "Linux", "example.org"))
    buffer.add((link.pk, "b" * 32, TODAY))

    assert buffer.flush(writer) == 2
    assert writer.pid != os.getpid() and running(writer.pid)
    buffer.add((link.pk, "a" * 32, TODAY))
    assert buffer.flush(writer) == 0  # a visitor already counted today, in the same process
    assert counter(link) == 2
    assert sorted(Visit.objects.values_list("visitor", flat=True)) == ["a" * 32, "b" * 32]


def test_the_background_flusher_hands_its_batches_to_a_writer_process(settings, link):
    settings.SHORTENER_VISIT_FLUSH_SECONDS = 0.05
    buffer = VisitBuffer()
    buffer.add((link.pk, "a" * 32, TODAY))
    try:
        eventually(lambda: counter(link) == 1)
        writer_pid = buffer._writer.pid
        assert writer_pid is not None and writer_pid != os.getpid() and running(writer_pid)
    finally:
        buffer.stop()

    assert not running(writer_pid), "stop() leaves no writer process behind"


def test_a_writer_killed_between_batches_is_started_again_and_nothing_is_lost(link, writer):
    buffer = flushed_by_hand()
    buffer.add((link.pk, "a" * 32, TODAY))
    buffer.flush(writer)
    first = writer.pid
    os.kill(first, signal.SIGKILL)
    eventually(lambda: not running(first))

    buffer.add((link.pk, "b" * 32, TODAY))
    assert buffer.flush(writer) == 1
    assert writer.pid != first and running(writer.pid)
    assert counter(link) == 2


def test_a_batch_the_writer_never_acknowledged_is_written_by_the_web_process(link):
    # A writer that reads part of the batch and dies, as one killed in the middle would.
    writer = VisitWriterProcess([sys.executable, "-c", "import sys; sys.stdin.buffer.read(5)"])
    buffer = flushed_by_hand()
    buffer.add((link.pk, "a" * 32, TODAY))

    assert buffer.flush(writer) == 1
    first = writer.pid

    # Nor does the web process start a writer again at every round: a while, it writes its batches itself.
    buffer.add((link.pk, "b" * 32, TODAY))
    assert buffer.flush(writer) == 1
    assert writer.pid == first and not running(first)
    assert counter(link) == 2
    assert Visit.objects.filter(link=link).count() == 2


def test_a_database_error_in_the_writer_keeps_the_batch_for_the_next_round(monkeypatch, link, writer):
    if connection.vendor != "postgresql":
        pytest.skip("an unreachable database is a PostgreSQL server that does not answer")
    # Read when the writer starts, at its first batch.
    monkeypatch.setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:9/test")  # nothing listens on port 9
    buffer = flushed_by_hand()
    buffer.add((link.pk, "a" * 32, TODAY))

    with pytest.raises(DatabaseError):
        buffer.flush(writer)
    assert running(writer.pid), "the writer survives a database error"
    assert counter(link) == 0

    assert buffer.flush() == 1  # the next round (here, the web process itself) writes the kept batch

    assert counter(link) == 1


def test_the_writer_exits_when_the_web_process_is_gone(link, writer):
    buffer = flushed_by_hand()
    buffer.add((link.pk, "a" * 32, TODAY))
    buffer.flush(writer)
    pid = writer.pid
    # What the kernel does for a killed web process: its end of the pipe closes.
    writer._process.stdin.close()

    eventually(lambda: writer._process.poll() is not None, timeout=10)
    assert writer._process.returncode == 0
    writer.close()
    assert not running(pid)


def test_the_writer_outlives_a_sigterm_to_its_process_group_until_the_web_process_is_done(link, writer):
    # serve.py and granian stop whole process groups; the web process still has its last batch to write.
    buffer = flushed_by_hand()
    buffer.add((link.pk, "a" * 32, TODAY))
    buffer.flush(writer)
    pid = writer.pid
    # A SIGTERM with its default action kills at once, before the writer reads the next batch.
    os.kill(pid, signal.SIGTERM)

    buffer.add((link.pk, "b" * 32, TODAY))
    assert buffer.flush(writer) == 1
    assert writer.pid == pid and running(pid), "the same writer wrote the batch"
    assert counter(link) == 2
