"""What the service's log writes: a refused request in one line, a server error with its traceback.

Loaded by config.settings.LOGGING before the apps: the standard library only.
"""

import contextvars
import copy
import datetime
import itertools
import json
import logging
import os
import re
import secrets


def _escaped(text: str) -> str:
    # As Django escapes what it logs of a request (django.utils.log.log_message): a path may hold
    # a newline (%0A), and one line must stay one line.
    return text.encode("unicode_escape").decode("ascii")


class ClientErrorsInOneLine(logging.Filter):
    """Write a record about a 4xx answer without its traceback, naming the exception instead.

    Django logs the requests it refuses with the exception's traceback: every SuspiciousOperation
    (a bad Host header, too many fields, a body over DATA_UPLOAD_MAX_MEMORY_SIZE, an over-long
    redirect) on the `django.security.<exception>` loggers, a malformed multipart body,
    BadRequest and PermissionDenied on `django.request`. Nothing in such a traceback is for an
    operator to fix, and any client can send them by the thousand: 344 filled a log in one
    afternoon (issue 49). Records of 5xx answers, and every record without a status (the
    application's own `logger.exception`), keep their traceback.

    A handler filter, not a logger filter: Django logs each SuspiciousOperation on a logger named
    after its class, and a logger's filters see only the records logged on it. The handler writes
    a copy; other handlers (and the record itself) keep the traceback.
    """

    def filter(self, record: logging.LogRecord) -> bool | logging.LogRecord:
        status = getattr(record, "status_code", None)
        if not record.exc_info or not isinstance(status, int) or not 400 <= status < 500:
            return True
        # A SuspiciousOperation's message may quote the request (a Host header, a boundary).
        message = record.getMessage().replace("\r", "\\r").replace("\n", "\\n")
        request = getattr(record, "request", None)
        path = getattr(request, "path", None)
        where = ""
        if isinstance(path, str) and _escaped(path) not in message:
            where = f" on {getattr(request, 'method', '')} {_escaped(path)}"
        one_line = copy.copy(record)
        one_line.msg = f"{message} ({type(record.exc_info[1]).__name__}{where}, answered {status})"
        one_line.args = ()
        one_line.exc_info = None
        one_line.exc_text = None
        one_line.stack_info = None
        return one_line


# --- Request ids and JSON lines (LOG_FORMAT=json) ---------------------------

# The id of the request this thread (or the event loop, for the moment it answers one) is serving:
# config/front.py sets it, RequestIdFilter puts it on every record.
request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="")

_SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")
# Made ids: a random prefix per process and a counter, unique across processes and cheap (the
# redirect makes one per request at 12-18k requests a second).
_prefix = secrets.token_hex(4)
_counter = itertools.count(1)


def _new_prefix() -> None:
    # A forked worker makes its own ids (granian's workers, the visit writer).
    global _prefix, _counter
    _prefix, _counter = secrets.token_hex(4), itertools.count(1)


os.register_at_fork(after_in_child=_new_prefix)


def new_request_id(given: str | None) -> str:
    """The client's (or proxy's) X-Request-ID when it is sane (a token of up to 128 characters that
    cannot break a log line), else a new one."""
    if given and _SANE_REQUEST_ID.fullmatch(given):
        return given
    return f"{_prefix}-{next(_counter):x}"


class RequestIdFilter(logging.Filter):
    """Put the current request's id on every record (empty outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", ""):
            record.request_id = request_id.get()
        return True


# Attributes every LogRecord has: the rest were given in `extra=` and go into the JSON line.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "request_id"}
# Objects Django passes in `extra` (the request, the server's socket): never written, they may hold
# cookies and headers.
_NEVER = {"request", "server_time", "connection"}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id, `extra` fields, exception."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.datetime.fromtimestamp(record.created, datetime.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", ""),
        }
        for key, value in vars(record).items():
            if key in _STANDARD or key in _NEVER or key.startswith("_"):
                continue
            line[key] = value if isinstance(value, (str, int, float, bool, type(None))) else str(value)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)
