"""A process of its own that writes the visit buffer's batches, so that the web process only hands them over.

Building a batch's statements is a few milliseconds of Python per flush. In the web process that
Python shares the GIL with the event loop serving redirects, and every time the loop waits on a
socket the flusher thread takes the GIL for up to the 5 ms switch interval: a few ms of flusher
work became tens of ms of redirect latency (bench/README.md, "The flusher's Python time, not the
counters"). Here the web process's flusher does one C call (pickle.dumps of the batch, plain
tuples and dates) and writes it to a pipe; a child process, started by the flusher with
subprocess (fork and exec, so nothing of the web server's threads comes along), writes it with
visits.write_visits, which `manage.py visit_writer` passes to `serve` (visits.py uses this module, so
this module does not import it back), and answers how many visits were new.

- A batch is acknowledged only once its transaction has committed. If the child dies first (or
  cannot start), the flusher writes that batch itself, in its own process, and starts a new
  child RESTART_DELAY_SECONDS later: nothing is lost. A batch the child committed but could not
  acknowledge is written twice, which the (link, visitor, day) constraint makes harmless for
  visits; the robots' request counts of that batch would count twice.
- A database error in the child comes back as a DatabaseError, so the batch goes back into the
  buffer for the next round, as it does when the flusher writes in-process.
- The child ignores SIGTERM and SIGINT (serve.py and granian signal whole process groups) and
  exits when its pipe closes: when the web process exits or is killed, after finishing the batch
  it has read. The web process writes its last batch at exit itself.

    manage.py visit_writer   (started by VisitBuffer; not meant to be run by hand)
"""

import contextlib
import logging
import pickle
import signal
import struct
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from django.db import DatabaseError, connection

from shortener.services.breakdowns import VisitDetails
from shortener.services.visits import BotKey, VisitKey

logger = logging.getLogger(__name__)

COMMAND = [sys.executable, str(Path(__file__).resolve().parent.parent.parent / "manage.py"), "visit_writer"]
# Each message, either way: one byte (+ a batch, or the count of its new visits; - an error),
# the payload's length, the payload.
HEADER = struct.Struct("!Q")
OK, FAILED = b"+", b"-"
# After a writer died holding a batch, the flusher writes in its own thread this long before it
# starts another: a writer that cannot start (or dies at each batch) must not cost a Django start each round.
RESTART_DELAY_SECONDS = 10.0


class WriterGone(Exception):
    """The writer process exited, or never started, before acknowledging a batch."""


def _read_exactly(stream, size: int) -> bytes:
    data = stream.read(size)
    if data is None or len(data) < size:
        raise EOFError
    return data


def _send(stream, kind: bytes, payload: bytes) -> None:
    stream.write(kind + HEADER.pack(len(payload)) + payload)
    stream.flush()


def _receive(stream) -> tuple[bytes, bytes]:
    kind = _read_exactly(stream, 1)
    (size,) = HEADER.unpack(_read_exactly(stream, HEADER.size))
    return kind, _read_exactly(stream, size)


class VisitWriterProcess:
    """The web process's side: one child at a time, started when first needed and again after it dies."""

    def __init__(self, command: list[str] = COMMAND) -> None:
        self.command = command
        self._process: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self._died_at = -RESTART_DELAY_SECONDS

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        """Start the child now: it takes a second of CPU to load Django, better spent before the first visits."""
        with self._lock, contextlib.suppress(WriterGone):
            self._started()

    def _started(self) -> subprocess.Popen:
        if self._process is None or self._process.poll() is not None:
            if time.monotonic() - self._died_at < RESTART_DELAY_SECONDS:
                raise WriterGone(f"the visit writer process died less than {RESTART_DELAY_SECONDS:.0f} s ago")
            self._process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        return self._process

    def write(self, pending: dict[VisitKey, VisitDetails], bots: Counter[BotKey]) -> int:
        """Have the child write the batch; return how many visits were new.

        Raises WriterGone if the child did not acknowledge it (the batch may or may not be
        written), DatabaseError if the child's transaction failed (the batch is not written).
        """
        batch = pickle.dumps((pending, bots), pickle.HIGHEST_PROTOCOL)
        with self._lock:
            process = self._started()
            try:
                _send(process.stdin, OK, batch)
                kind, payload = _receive(process.stdout)
            except (OSError, EOFError) as error:
                self._died_at = time.monotonic()
                self._stop(process)
                raise WriterGone(f"the visit writer process {process.pid} exited") from error
        if kind == FAILED:
            raise DatabaseError(payload.decode(errors="replace"))
        return int(payload)

    def close(self) -> None:
        """Close the child's pipe (it exits when done) and wait for it a little."""
        with self._lock:
            if self._process is not None:
                self._stop(self._process)
                self._process = None

    @staticmethod
    def _stop(process: subprocess.Popen) -> None:
        for stream in (process.stdin, process.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def serve(requests, replies, write_visits: Callable[..., int]) -> None:
    """The child's loop: read a batch, write it with `write_visits`, answer; until the pipe closes."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        while _write_one(requests, replies, write_visits):
            pass
    finally:
        connection.close()  # at once: a test database cannot be dropped while a session is left


def _write_one(requests, replies, write_visits: Callable[..., int]) -> bool:
    """Write the next batch and answer; False once the web process is gone."""
    try:
        _kind, payload = _receive(requests)
    except EOFError:
        return False
    pending, bots = pickle.loads(payload)
    try:
        new = write_visits(list(pending), wait_for_wal=True, details=pending, bots=bots)
    except DatabaseError as error:
        logger.warning("Could not write %d buffered visits: %s", len(pending), error)
        connection.close()
        answer = (FAILED, str(error).encode())
    else:
        answer = (OK, str(new).encode())
    try:
        _send(replies, *answer)
    except OSError:
        return False  # the web process is gone; what it sent is written
    return True
