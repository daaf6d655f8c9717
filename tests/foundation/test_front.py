"""config.front without a server: what it hands the ASGI server for plain and streamed responses."""

import asyncio
from concurrent.futures import ThreadPoolExecutor

from django.http import HttpResponse, StreamingHttpResponse

from config.front import STREAM_PIECE_BYTES, BufferedBodyFront


def application(environ, start_response):
    if environ["PATH_INFO"] == "/streamed":
        response = StreamingHttpResponse(b"x" * 50_000 for _ in range(5))
    else:
        response = HttpResponse(b"hello")
    start_response(f"{response.status_code} OK", list(response.items()))
    return response


def call(path: str) -> list[dict]:
    sent = []
    requests = [{"type": "http.request", "body": b"", "more_body": False}]

    async def receive() -> dict:
        return requests.pop(0)

    async def send(message: dict) -> None:
        sent.append(message)

    front = BufferedBodyFront(application, threads=2)
    scope = {"type": "http", "method": "GET", "path": path, "headers": [], "query_string": b""}
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
