"""The WSGI application behind an asynchronous body reader: what `config.asgi` serves.

Under a WSGI server a request takes one of the worker's few threads before its body has
arrived, and keeps it while the body trickles in: sixteen connections sending a
`Content-Length: 100000` body a byte a second held every thread of `make run`, and `/healthz`
answered nothing for as long as they kept sending. Here the body is read on the event loop
first, where a waiting connection costs a coroutine and no thread, within a limit and a time:

- a declared `Content-Length` over the path's limit is answered 413 at once, unread, and a body
  that grows past it (chunked, or longer than declared) is answered 413 as soon as it does;
- a body that has not arrived REQUEST_BODY_TIMEOUT seconds after the headers is answered 408;
- a body that cannot be read (malformed chunked encoding: granian reports it as a disconnect)
  is answered 400;
- each in the error shape of the interface the path belongs to (config.views.interface_errors),
  with `Connection: close`, since the rest of the body is never read.

Only then does the request take a thread of the pool (WEB_THREADS per process, as
`--blocking-threads` under WSGI), with the whole body in `wsgi.input` and its length in
CONTENT_LENGTH. That also reads chunked bodies (`Transfer-Encoding: chunked`), which the WSGI
server handed to Django with no CONTENT_LENGTH, so Django read them as empty.

Requests without a body (page and API reads) go straight to the pool, and a short link's
redirect does not even go there: `shortcut` (shortener.fastpath.wsgi.shortcut_answer, which
answers a cached link from memory, without the database) runs on the event loop, and only the
requests it declines take a thread, saving the two thread hand-offs that cost the redirect a
quarter of its throughput (docs/deployment.md, "Request bodies and slow clients").
"""

import asyncio
import io
import logging
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings

from common import metrics
from common.logs import new_request_id, request_id

logger = logging.getLogger(__name__)
# With LOG_FORMAT=json, one line per request (granian's own access log is text only).
access_logger = logging.getLogger("webtools.access")
REQUEST_ID_KEY = "webtools.request_id"

type WSGIApp = Callable[[dict, Callable], Iterable[bytes]]
type Shortcut = Callable[[dict], tuple[int, list[tuple[bytes, bytes]], bytes] | None]

# Bodies up to this size stay in memory; larger ones (pastes, imports) go to a temporary file.
SPOOL_MAX_BYTES = 1024 * 1024


MALFORMED_BODY = "The request body could not be read: it is malformed (its chunked encoding) or was cut short."


class BodyTooLarge(Exception):
    pass


class ClientGone(Exception):
    pass


def body_limit(path: str) -> int:
    """The largest request body the interface of `path` accepts, in bytes (docs/deployment.md)."""
    if path.startswith("/api/"):
        return settings.REPORTS_MAX_REQUEST_BYTES
    pastes = settings.PASTES_PREFIX
    if pastes and (path == f"/{pastes}" or path.startswith(f"/{pastes}/")):
        return settings.PASTES_MAX_BODY_BYTES
    # The shortener's import takes a file of up to SHORTENER_IMPORT_MAX_BYTES in a multipart form;
    # every other form of the site is far smaller than Django's own limit.
    return max(settings.DATA_UPLOAD_MAX_MEMORY_SIZE, settings.SHORTENER_IMPORT_MAX_BYTES + 64 * 1024)


def error_app(status: int, message: str) -> WSGIApp:
    """A WSGI application answering `status` with `message` in the path's interface's error shape."""

    def application(environ: dict, start_response: Callable) -> Iterable[bytes]:
        from django.core.handlers.wsgi import WSGIRequest

        from config.views import interface_errors

        request = WSGIRequest(environ)
        response = interface_errors(request).error_response(request, status, message)
        response["Connection"] = "close"
        headers = [*response.items(), *(("Set-Cookie", c.output(header="")) for c in response.cookies.values())]
        start_response(f"{response.status_code} {response.reason_phrase}", headers)
        return [response.content]

    return application


def wsgi_environ(scope: dict, body: io.IOBase, length: int) -> dict:
    server_name, server_port = scope.get("server") or ("localhost", 80)
    client = scope.get("client") or ("", 0)
    environ = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": scope.get("root_path", "").encode().decode("latin-1"),
        # PEP 3333: the path's bytes as latin-1 characters, as a WSGI server passes them.
        "PATH_INFO": scope["path"].encode().decode("latin-1"),
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server_name),
        "SERVER_PORT": str(server_port),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "REMOTE_ADDR": client[0],
        "REMOTE_PORT": str(client[1]),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": body,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        if name == "CONTENT_TYPE":
            environ["CONTENT_TYPE"] = value
            continue
        if name in ("CONTENT_LENGTH", "TRANSFER_ENCODING"):
            continue  # the body is read whole: its length is what arrived
        key = f"HTTP_{name}"
        environ[key] = f"{environ[key]},{value}" if key in environ else value
    environ["CONTENT_LENGTH"] = str(length) if length or scope["method"] not in ("GET", "HEAD") else ""
    return environ


def run_wsgi(application: WSGIApp, environ: dict) -> tuple[int, list[tuple[bytes, bytes]], list[bytes], object]:
    """Call the WSGI application in this (pool) thread; return status, headers, body and what is left to stream.

    A response Django streams (StreamingHttpResponse: the exports) is not read whole here: its
    first chunk comes back with the iterator, which the caller reads on in the pool piece by piece.
    """
    started: list = []
    chunks: list[bytes] = []
    token = request_id.set(environ.get(REQUEST_ID_KEY, ""))  # on every log line of the request

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: object = None) -> Callable:
        started[:] = [status, headers]
        return chunks.append  # the legacy write() callable

    result = application(environ, start_response)
    rest = None
    try:
        if getattr(result, "streaming", False):
            rest = iter(result)
            chunks.extend(next_chunks(rest))
        else:
            chunks.extend(chunk for chunk in result if chunk)
    finally:
        if rest is None and hasattr(result, "close"):
            result.close()
        request_id.reset(token)
    status, headers = started
    encoded = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers]
    return int(status.split(" ", 1)[0]), encoded, chunks, (result if rest is not None else None, rest)


STREAM_PIECE_BYTES = 64 * 1024


def next_chunks(iterator: Iterator[bytes]) -> list[bytes]:
    """Up to STREAM_PIECE_BYTES of a streamed response; an empty list at its end."""
    chunks, size = [], 0
    for chunk in iterator:
        if chunk:
            chunks.append(chunk)
            size += len(chunk)
        if size >= STREAM_PIECE_BYTES:
            break
    return chunks


def may_have_body(scope: dict) -> bool:
    """False for an HTTP/1 request without Content-Length or Transfer-Encoding: it has no body
    (RFC 9112, 6.3). Not waiting for one saves every such request (most reads, every redirect)
    a coroutine, a timeout and a spooled file. HTTP/2 frames a body without either header."""
    if scope.get("http_version", "1.1") not in ("1.1", "1.0"):
        return True
    return any(name in (b"content-length", b"transfer-encoding") for name, _ in scope.get("headers", []))


class BufferedBodyFront:
    """ASGI application: read the body on the event loop, then run the WSGI application in a thread pool."""

    def __init__(self, application: WSGIApp, *, threads: int, shortcut: Shortcut | None = None) -> None:
        self.application = application
        self.shortcut = shortcut
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="wsgi")

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
            return
        if scope["type"] != "http":
            return  # no websockets here: the server closes the connection
        arrived = time.perf_counter()
        application = self.application
        limit = body_limit(scope["path"])
        declared = next((value for name, value in scope.get("headers", []) if name == b"content-length"), b"")
        body: io.IOBase = io.BytesIO()
        length = 0
        if declared.isdigit() and int(declared) > limit:
            application = error_app(413, f"The request body is too large: the limit is {limit} bytes.")
        elif may_have_body(scope):
            try:
                body, length = await asyncio.wait_for(self.read_body(receive, limit), settings.REQUEST_BODY_TIMEOUT)
            except BodyTooLarge:
                application = error_app(413, f"The request body is too large: the limit is {limit} bytes.")
            except TimeoutError:
                timeout = settings.REQUEST_BODY_TIMEOUT
                application = error_app(408, f"The request body did not arrive within {timeout:g} seconds.")
            except ClientGone:
                # granian reports a body it cannot parse (a chunk size that is not hexadecimal) as
                # a disconnect, and answers an application that sends nothing with a bare 500. A
                # client that has really gone never reads this answer: granian drops it.
                application = error_app(400, MALFORMED_BODY)
        loop = asyncio.get_running_loop()
        try:
            environ = wsgi_environ(scope, body, length)
            rid = environ[REQUEST_ID_KEY] = new_request_id(environ.get("HTTP_X_REQUEST_ID"))
            if self.shortcut is not None and application is self.application and not length:
                response = self.answer_here(environ, rid)
                if response is not None:
                    response[1].append((b"x-request-id", rid.encode()))
                    await send({"type": "http.response.start", "status": response[0], "headers": response[1]})
                    await send({"type": "http.response.body", "body": response[2]})
                    self.answered(environ, response[0], arrived, ("shortener", "shortener:redirect"))
                    return
            status, headers, chunks, (result, rest) = await loop.run_in_executor(
                self.pool, run_wsgi, application, environ
            )
        finally:
            body.close()
        headers.append((b"x-request-id", rid.encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        if rest is None:
            await send({"type": "http.response.body", "body": b"".join(chunks)})
            self.answered(environ, status, arrived)
            return
        try:
            while chunks:
                await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": True})
                chunks = await loop.run_in_executor(self.pool, next_chunks, rest)
            await send({"type": "http.response.body", "body": b""})
        finally:
            if hasattr(result, "close"):
                await loop.run_in_executor(self.pool, result.close)
            self.answered(environ, status, arrived)

    @staticmethod
    def answered(environ: dict, status: int, arrived: float, route: tuple[str, str] | None = None) -> None:
        """Count the request (METRICS_TOKEN) and write its access log line (LOG_FORMAT=json)."""
        if settings.METRICS_TOKEN:
            metrics.observe_request(*(route or metrics.route_of(environ)), status, time.perf_counter() - arrived)
        if settings.ACCESS_LOG:
            interface, name = route or metrics.route_of(environ)
            # The path without its query string, which may carry a token or a search, and without
            # the keys some paths hold (metrics.RouteMiddleware).
            path = environ.get(metrics.LOG_PATH_KEY) or environ["PATH_INFO"]
            access_logger.info(
                "%s %s %s",
                environ["REQUEST_METHOD"],
                path,
                status,
                extra={
                    "request_id": environ[REQUEST_ID_KEY],
                    "method": environ["REQUEST_METHOD"],
                    "path": path,
                    "status": status,
                    "duration_ms": round((time.perf_counter() - arrived) * 1000, 2),
                    "interface": interface,
                    "route": name,
                },
            )

    def answer_here(self, environ: dict, rid: str) -> tuple[int, list[tuple[bytes, bytes]], bytes] | None:
        # No await until it is reset: the event loop serves no other request meanwhile.
        token = request_id.set(rid)
        try:
            answer = self.shortcut(environ)
        except Exception:
            # Django's handler turns errors into logged 500 pages; let it redo this request.
            logger.exception("The redirect shortcut failed; handing the request to Django.")
            return None
        finally:
            request_id.reset(token)
        if answer is None:
            return None
        status, headers, body = answer
        return status, [(name.lower(), value) for name, value in headers], body

    @staticmethod
    async def read_body(receive: Callable, limit: int) -> tuple[io.IOBase, int]:
        body = tempfile.SpooledTemporaryFile(max_size=SPOOL_MAX_BYTES)  # noqa: SIM115 (closed by the caller)
        length = 0
        try:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    raise ClientGone
                chunk = message.get("body", b"")
                length += len(chunk)
                if length > limit:
                    raise BodyTooLarge
                body.write(chunk)
                if not message.get("more_body", False):
                    break
        except BaseException:
            body.close()
            raise
        body.seek(0)
        return body, length

    async def lifespan(self, receive: Callable, send: Callable) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                # Requests still running finish; the visit buffers are written at exit (atexit).
                await asyncio.get_running_loop().run_in_executor(None, self.pool.shutdown)
                await send({"type": "lifespan.shutdown.complete"})
                return
