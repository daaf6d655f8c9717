"""Fetching pages safely: one time budget, a body cap, vetted addresses on every hop.

Every connection goes through `GuardedBackend`, which resolves the host itself,
refuses private addresses (unless REPORTS_ALLOW_PRIVATE_NETWORKS) and connects to
the address it vetted. TLS still verifies and sends SNI for the host name, and
the Host header is untouched, so pinning the address changes nothing else.
"""

import socket
import ssl
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import httpcore
import httpx
from django.conf import settings

from reports.analysis import netguard
from reports.analysis.decoding import SUPPORTED_ENCODINGS, BoundedDecoder
from reports.analysis.errors import AnalysisError

HTML_CONTENT_TYPES = {"text/html", "application/xhtml+xml"}
REDIRECT_STATUSES = {301, 302, 303, 307, 308}
ACCEPT_HTML = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"


def format_bytes(size: int) -> str:
    for unit, scale in (("MB", 1024 * 1024), ("kB", 1024)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size} bytes"


def format_seconds(seconds: float) -> str:
    return f"{seconds:g} second" + ("" if seconds == 1 else "s")


def ssl_context() -> ssl.SSLContext:
    """A verifying TLS context with certifi's CA bundle (a fresh one: callers may set ALPN on it)."""
    return httpx.create_ssl_context()


def _within(deadline: float | None, timeout: float | None, error: type[Exception]) -> float | None:
    """`timeout` cut to what is left before `deadline` (time.monotonic()); `error` once it has passed."""
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise error("the deadline passed")
    return left if timeout is None else min(timeout, left)


class AnswerTooLong(httpcore.ReadError):
    """The peer sent more than a `BoundedStream` may read."""


class BoundedStream(httpcore.NetworkStream):
    """A connection that ends at a deadline and reads at most `max_read` bytes, whatever the peer does.

    httpx's timeouts bound each read, not their sum: a peer sending a byte every few seconds
    held a webhook delivery for minutes. Here every read and write gets only the time left.
    """

    def __init__(self, stream: httpcore.NetworkStream, *, deadline: float | None, max_read: int | None) -> None:
        self.stream = stream
        self.deadline = deadline
        self.left_to_read = max_read

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self.left_to_read is not None:
            if self.left_to_read <= 0:
                raise AnswerTooLong("the answer is longer than the bytes this connection may read")
            max_bytes = min(max_bytes, self.left_to_read)
        data = self.stream.read(max_bytes, _within(self.deadline, timeout, httpcore.ReadTimeout))
        if self.left_to_read is not None:
            self.left_to_read -= len(data)
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.stream.write(buffer, _within(self.deadline, timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self.stream.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        timeout = _within(self.deadline, timeout, httpcore.ConnectTimeout)
        self.stream = self.stream.start_tls(ssl_context, server_hostname, timeout)
        return self

    def get_extra_info(self, info: str) -> object:
        return self.stream.get_extra_info(info)


class GuardedBackend(httpcore.SyncBackend):
    """httpcore's socket backend, connecting only to addresses that passed the SSRF guard.

    With a `deadline` (time.monotonic()) or `max_read`, its connections are `BoundedStream`s.
    """

    def __init__(self, *, allow_private: bool, deadline: float | None = None, max_read: int | None = None) -> None:
        self.allow_private = allow_private
        self.deadline = deadline
        self.max_read = max_read

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: object = None,
    ) -> httpcore.NetworkStream:
        timeout = _within(self.deadline, timeout, httpcore.ConnectTimeout)
        try:
            addresses = netguard.vetted_addresses(host, port, timeout=timeout, allow_private=self.allow_private)
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(str(exc)) from exc
        error: Exception | None = None
        for address in addresses:
            try:
                stream = super().connect_tcp(
                    address,
                    port,
                    _within(self.deadline, timeout, httpcore.ConnectTimeout),
                    local_address,
                    socket_options,
                )
            except httpcore.ConnectError as exc:
                error = exc
                continue
            if self.deadline is None and self.max_read is None:
                return stream
            return BoundedStream(stream, deadline=self.deadline, max_read=self.max_read)
        raise error  # type: ignore[misc]  # addresses is never empty


class GuardedTransport(httpx.HTTPTransport):
    """httpx's transport on a connection pool that uses `GuardedBackend` (its `deadline` and `max_read` too)."""

    def __init__(
        self, *, allow_private: bool, max_connections: int, deadline: float | None = None, max_read: int | None = None
    ) -> None:
        # HTTPTransport offers no network_backend argument, so build its pool here
        # instead of calling its __init__ (httpx is pinned; see requirements.txt).
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context(),
            max_connections=max_connections,
            max_keepalive_connections=max_connections,
            network_backend=GuardedBackend(allow_private=allow_private, deadline=deadline, max_read=max_read),
        )


@dataclass
class Fetched:
    """One fetched resource, after redirects."""

    url: str
    status: int
    headers: httpx.Headers
    body: bytes = b""
    http_version: str = "HTTP/1.1"
    transferred_bytes: int = 0
    truncated: bool = False
    redirects: list[str] = field(default_factory=list)
    ttfb_ms: int = 0
    total_ms: int = 0

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";", 1)[0].strip().lower()

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


class Fetcher:
    """An HTTP client bound to one analysis: its time budget, caps and SSRF policy."""

    def __init__(self, budget: float | None = None) -> None:
        self.budget = settings.REPORTS_FETCH_TIMEOUT if budget is None else budget
        self.deadline = time.monotonic() + self.budget
        self.max_body_bytes = settings.REPORTS_MAX_BODY_BYTES
        self.max_redirects = settings.REPORTS_MAX_REDIRECTS
        self.allow_private = settings.REPORTS_ALLOW_PRIVATE_NETWORKS
        self.client = httpx.Client(
            # The deadline holds inside each answer too: a server trickling its headers a byte at a
            # time would otherwise hold the analysis (each read waits at most the time left, not their sum).
            transport=GuardedTransport(
                allow_private=self.allow_private, max_connections=SUBREQUEST_CONCURRENCY, deadline=self.deadline
            ),
            headers={"User-Agent": settings.REPORTS_USER_AGENT, "Accept-Encoding": ", ".join(SUPPORTED_ENCODINGS)},
            follow_redirects=False,
            trust_env=False,  # no proxy from the environment: it would bypass the address check
        )

    def close(self) -> None:
        self.client.close()

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def timeout_error(self) -> AnalysisError:
        return AnalysisError(f"The page did not answer within {format_seconds(self.budget)}.")

    def fetch(
        self,
        url: str,
        *,
        method: str = "GET",
        max_bytes: int | None = None,
        truncate: bool = False,
        html_only: bool = False,
    ) -> Fetched:
        """GET (or HEAD) `url`, following redirects; raise AnalysisError naming any failure.

        Bodies beyond `max_bytes` raise, or with `truncate` are cut short (the size
        read so far is kept). `html_only` refuses a non-HTML answer before reading it.
        """
        max_bytes = self.max_body_bytes if max_bytes is None else max_bytes
        started = time.monotonic()
        redirects: list[str] = []
        current = parse_url(url)
        while True:
            _require_http(current, redirected=bool(redirects))
            hop_started = time.monotonic()
            with self._open(method, current, html_only) as response:
                ttfb_ms = _ms(time.monotonic() - hop_started)
                location = response.headers.get("location")
                if response.status_code in REDIRECT_STATUSES and location:
                    if len(redirects) >= self.max_redirects:
                        raise AnalysisError(f"The URL redirected more than {self.max_redirects} times.")
                    current = response.url.join(location)
                    redirects.append(str(current))
                    continue
                if html_only:
                    _require_html(response)
                body, truncated = self._read_body(response, method, max_bytes, truncate)
                return Fetched(
                    url=str(response.url),
                    status=response.status_code,
                    headers=response.headers,
                    body=body,
                    http_version=response.http_version,
                    transferred_bytes=response.num_bytes_downloaded,
                    truncated=truncated,
                    redirects=redirects,
                    ttfb_ms=ttfb_ms,
                    total_ms=_ms(time.monotonic() - started),
                )

    @contextmanager
    def _open(self, method: str, url: httpx.URL, html_only: bool) -> Iterator[httpx.Response]:
        """Send a request in streaming mode: the body is read (or not) by the caller."""
        remaining = self.remaining()
        if remaining <= 0:
            raise self.timeout_error()
        headers = {"Accept": ACCEPT_HTML} if html_only else {}
        request = self.client.build_request(method, url, headers=headers, timeout=httpx.Timeout(remaining))
        with _translated_errors(self, url.host):
            response = self.client.send(request, stream=True)
        try:
            yield response
        finally:
            response.close()

    def _read_body(self, response: httpx.Response, method: str, max_bytes: int, truncate: bool) -> tuple[bytes, bool]:
        if method == "HEAD":
            return b"", False
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_bytes and not truncate:
            raise _too_large(max_bytes)
        decoder = BoundedDecoder(response.headers.get("content-encoding", ""), response.url.host)
        chunks: list[bytes] = []
        size = 0
        for raw in _with_translated_errors(self, response.url.host, response.iter_raw()):
            if time.monotonic() > self.deadline:
                raise self.timeout_error()
            # The cap counts decoded bytes, so it also stops compression bombs.
            for chunk in decoder.decode(raw):
                size += len(chunk)
                if size > max_bytes:
                    if not truncate:
                        raise _too_large(max_bytes)
                    chunks.append(chunk[: len(chunk) - (size - max_bytes)])
                    return b"".join(chunks), True
                chunks.append(chunk)
        return b"".join(chunks), False

    def negotiated_protocol(self, host: str, port: int) -> str | None:
        """The protocol the server picks by TLS ALPN when offered h2 ("h2" means HTTP/2)."""
        timeout = self.remaining()
        if timeout <= 0:
            raise self.timeout_error()
        try:
            addresses = netguard.vetted_addresses(host, port, timeout=timeout, allow_private=self.allow_private)
        except TimeoutError:
            raise self.timeout_error() from None
        context = ssl_context()
        context.set_alpn_protocols(["h2", "http/1.1"])
        try:
            with (
                socket.create_connection((addresses[0], port), timeout=timeout) as sock,
                context.wrap_socket(sock, server_hostname=host) as tls,
            ):
                return tls.selected_alpn_protocol()
        except OSError as exc:
            raise AnalysisError(f"Could not open a TLS connection to {host}: {exc}.") from None


@contextmanager
def _translated_errors(fetcher: Fetcher, host: str) -> Iterator[None]:
    try:
        yield
    except AnalysisError:
        raise
    except Exception as exc:
        raise _translate(fetcher, host, exc) from exc


def _with_translated_errors(fetcher: Fetcher, host: str, chunks: Iterator[bytes]) -> Iterator[bytes]:
    with _translated_errors(fetcher, host):
        yield from chunks


def _translate(fetcher: Fetcher, host: str, exc: Exception) -> AnalysisError:
    if isinstance(exc, httpx.TimeoutException):
        return fetcher.timeout_error()
    ssl_error = _find_cause(exc, ssl.SSLError)
    if ssl_error is not None:
        reason = getattr(ssl_error, "verify_message", None) or getattr(ssl_error, "reason", None) or str(ssl_error)
        return AnalysisError(f"The TLS handshake with {host} failed ({reason}).")
    if isinstance(exc, httpx.ConnectError):
        os_error = _find_cause(exc, OSError)
        reason = (os_error.strerror if os_error and os_error.strerror else str(exc)).lower()
        return AnalysisError(f"Could not connect to {host} ({reason}).")
    if isinstance(exc, httpx.RemoteProtocolError) and "location header" in str(exc):
        # httpx parses the Location header while receiving the response, before we see it.
        return AnalysisError(f"The URL redirected to an invalid address ({exc}).")
    if isinstance(exc, httpx.TransportError):
        return AnalysisError(f"The connection to {host} failed ({exc or type(exc).__name__}).")
    return AnalysisError(f"Fetching from {host} failed ({exc}).")


def _find_cause[T: BaseException](exc: BaseException, kind: type[T]) -> T | None:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def parse_url(url: str) -> httpx.URL:
    try:
        return httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        raise AnalysisError(f"{url!r} is not a valid URL.") from None


def _require_http(url: httpx.URL, *, redirected: bool) -> None:
    if url.scheme not in ("http", "https"):
        if redirected:
            raise AnalysisError(f"The URL redirected to {url}, which is not an http or https address.")
        raise AnalysisError("Only http and https URLs can be analysed.")
    if not url.host:
        raise AnalysisError("The URL has no host name.")
    if url.port is not None and not 0 < url.port < 65536:
        raise AnalysisError(f"The port {url.port} is not a valid port number.")


def _require_html(response: httpx.Response) -> None:
    content_type = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    # No content type at all: browsers sniff and usually render HTML, so accept it.
    if content_type and content_type not in HTML_CONTENT_TYPES:
        raise AnalysisError(f"The URL does not point to an HTML page (content type {content_type}).")


def _too_large(max_bytes: int) -> AnalysisError:
    return AnalysisError(f"The page is larger than the {format_bytes(max_bytes)} limit.")


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


# Sub-requests in flight at once; also the size of the connection pool.
SUBREQUEST_CONCURRENCY = 8
