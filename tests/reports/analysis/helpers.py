"""Building a check's input from a snippet of HTML, without any network."""

import httpx

from reports.analysis import config
from reports.analysis.context import Context, Probe, Resources
from reports.analysis.fetch import Fetched
from reports.analysis.html import content_type_charset, decode, parse

PAGE_URL = "https://shop.example/garden/spades"


def make_context(
    html: str = "<!DOCTYPE html><html><head><title>t</title></head><body></body></html>",
    *,
    url: str = PAGE_URL,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
    resources: Resources | None = None,
    total_ms: int = 100,
    http_version: str = "HTTP/1.1",
    thresholds: dict[str, float] | None = None,
) -> Context:
    headers = {"content-type": "text/html; charset=utf-8", **(headers or {})}
    body = html.encode() if body is None else body
    document = Fetched(
        url=url,
        status=200,
        headers=httpx.Headers(headers),
        body=body,
        http_version=http_version,
        transferred_bytes=len(body),
        total_ms=total_ms,
    )
    decoded = decode(body, content_type_charset(headers["content-type"]))
    return Context(
        url=url,
        document=document,
        decoded=decoded,
        page=parse(decoded.text, url),
        resources=resources or Resources(),
        thresholds={**config.DEFAULT_THRESHOLDS, **(thresholds or {})},
    )


def page(head: str = "", body: str = "", *, lang: str = "en") -> str:
    """A complete HTML document around `head` and `body` snippets."""
    return f'<!DOCTYPE html><html lang="{lang}"><head>{head}</head><body>{body}</body></html>'


def probe(url: str, status: int = 200, body: bytes = b"", content_type: str = "text/plain") -> Probe:
    headers = httpx.Headers({"content-type": content_type})
    return Probe(url, fetched=Fetched(url=url, status=status, headers=headers, body=body))


def failed_probe(url: str, error: str = "The page did not answer within 10 seconds.") -> Probe:
    return Probe(url, error=error)
