"""What the service's log writes: a refused request in one line, a server error with its traceback.

Loaded by config.settings.LOGGING before the apps: the standard library only.
"""

import copy
import logging


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
