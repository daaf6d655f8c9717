"""config.front without a server: what it hands the ASGI server for plain and streamed responses."""

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.http import HttpResponse, StreamingHttpResponse

from config.front import MALFORMED_BODY, STREAM_PIECE_BYTES, BufferedBodyFront


def application(environ, start_response):
    if environ["PATH_INFO"] == "/streamed":
        response = StreamingHttpResponse(b"x" * 50_000 for _ in range(5))
    elif environ["PATH_INFO"] == "/echo":
        response = HttpResponse(environ["wsgi.input"].read())
    else:
        response = HttpResponse(b"hello")
    start_response(f"{response.status_code} OK", list(response.items()))
    return response


def call(
    path: str, *, headers: tuple = (), body: bytes = b"", http_version: str = "1.1", requests: list | None = None
) -> list[dict]:
    sent = []
    requests = requests or [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict:
        if not requests:
            raise AssertionError("the body was read twice")
        return requests.pop(0)

    async def send(message: dict) -> None:
        sent.append(message)

    front = BufferedBodyFront(application, threads=2)
    scope = {
        "type": "http",
        "http_version": http_version,
        "method": "GET",
        "path": path,
        "headers": list(headers),
        "query_string": b"",
    }
    # On a thread of its own: the browser tests' Playwright keeps an event loop running on this one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, front(scope, receive, send)).result()
    return sent


def test_a_plain_response_goes_out_in_one_message():
    start, body = call("/plain")

    assert start["status"] == 200
    assert body == {"type": "http.response.body", "body": b"hello"}


def test_a_streamed_response_goes_out_piece_by_piece_not_read_whole_first():
    start, *pieces = call("/streamed")

    assert start["status"] == 200
    assert b"".join(piece["body"] for piece in pieces) == b"x" * 250_000
    assert all(len(piece["body"]) <= 2 * STREAM_PIECE_BYTES for piece in pieces)
    assert [piece.get("more_body", False) for piece in pieces] == [True] * (len(pieces) - 1) + [False]


def test_an_http1_request_without_length_nor_chunks_has_no_body_to_wait_for():
    # RFC 9112, 6.3: such a request has no body, so the front does not ask the server for one.
    start, body = call("/echo", body=b"never sent by a real client")

    assert start["status"] == 200
    assert body["body"] == b""


def test_a_chunked_get_has_its_body_read():
    _, body = call("/echo", headers=[(b"transfer-encoding", b"chunked")], body=b"abc")

    assert body["body"] == b"abc"


def test_an_http2_request_has_its_body_read_without_a_length():
    # HTTP/2 frames a body in DATA frames: no header announces it.
    _, body = call("/echo", body=b"abc", http_version="2")

    assert body["body"] == b"abc"


@pytest.mark.parametrize("path", ["/api/v1/reports", "/pastes/create", "/s/a"])
def test_a_body_granian_could_not_read_is_a_400_not_nothing(path):
    # granian reports a malformed chunk as a disconnect; answered nothing, it sent a bare 500.
    cut = [{"type": "http.request", "body": b"abc", "more_body": True}, {"type": "http.disconnect"}]

    start, body = call(path, headers=[(b"transfer-encoding", b"chunked")], requests=cut)

    assert start["status"] == 400
    assert (b"connection", b"close") in start["headers"]
    assert MALFORMED_BODY.encode() in body["body"]
