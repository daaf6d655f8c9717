"""Tests of hostile input fail when the service's log would show a traceback (issue 50, regression 3).

A module opts in with `pytestmark = pytest.mark.log_without_tracebacks`: every record logged while
its tests run is put through the filters of the log's handler (settings.LOGGING's "console"), and
one that handler would write with a traceback fails the test, naming the logger, the message and
the exception. A traceback in that log is for an operator to act on: hostile input must not make one.

Servers in processes of their own (tests/servers.py) write their log to Server.output():
`assert_no_traceback` reads it.
"""

import io
import logging
from collections.abc import Iterator

import pytest

MARKER = "log_without_tracebacks"


def log_handler() -> logging.Handler:
    """The handler settings.LOGGING writes the service's log with."""
    handler = logging.getHandlerByName("console")
    assert handler is not None, "settings.LOGGING has no 'console' handler any more"
    return handler


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def written_with_traceback(records: list[logging.LogRecord], handler: logging.Handler) -> list[logging.LogRecord]:
    """The records `handler` would write with a traceback, as it would write them."""
    written = []
    for record in records:
        result = handler.filter(record)
        if result:
            written.append(result if isinstance(result, logging.LogRecord) else record)
    return [record for record in written if record.exc_info or record.stack_info]


def describe(record: logging.LogRecord) -> str:
    exception = record.exc_info[1] if record.exc_info else None
    return f"{record.name} {record.levelname}: {record.getMessage()[:200]} ({type(exception).__name__})"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    if item.get_closest_marker(MARKER) is None:
        return (yield)
    handler = log_handler()
    capture = Records()
    root = logging.getLogger()
    root.addHandler(capture)
    try:
        result = yield
    finally:
        root.removeHandler(capture)
    tracebacks = written_with_traceback(capture.records, handler)
    if tracebacks:
        pytest.fail("logged with a traceback:\n" + "\n".join(map(describe, tracebacks)), pytrace=False)
    return result


def assert_no_traceback(log: str) -> None:
    """`log`, the output of a server process, shows no traceback."""
    assert "Traceback (most recent call last)" not in log, log[-3000:]


@pytest.fixture
def operator_log() -> Iterator[io.StringIO]:
    """What the service's log handler writes during the test, as an operator reads it."""
    handler = log_handler()
    written = io.StringIO()
    previous = handler.setStream(written)
    try:
        yield written
    finally:
        handler.setStream(previous)
