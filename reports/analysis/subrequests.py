"""The requests made besides the page itself, run concurrently within the page's time budget."""

import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

from django.conf import settings

from reports.analysis.context import Probe, Resources
from reports.analysis.errors import AnalysisError
from reports.analysis.fetch import SUBREQUEST_CONCURRENCY, Fetched, Fetcher
from reports.analysis.html import ParsedPage
from reports.analysis.robots import parse_robots

# Enough of a text file to judge it; the rest is not read.
TEXT_FILE_BYTES = 512 * 1024
# Stylesheets and scripts are read whole up to this size, to judge minification.
CODE_FILE_BYTES = 1024 * 1024

Job = Callable[[], Callable[[Resources], None]]


def gather(fetcher: Fetcher, document: Fetched, page: ParsedPage) -> Resources:
    """Fetch robots.txt, the sitemap, a missing page, llms.txt, the favicon and the page's assets.

    At most REPORTS_MAX_SUBREQUESTS requests, in that order of priority.
    """
    parts = urlsplit(document.url)
    origin = f"{parts.scheme}://{parts.netloc}"
    left = settings.REPORTS_MAX_SUBREQUESTS
    jobs: list[Job] = []

    def take(count: int = 1) -> bool:
        nonlocal left
        if left < count:
            return False
        left -= count
        return True

    if take():
        with_sitemap = take()
        jobs.append(lambda: _robots_and_sitemap(fetcher, origin, with_sitemap=with_sitemap))
    if take():
        missing = f"{origin}/{secrets.token_hex(8)}-this-page-does-not-exist"
        jobs.append(lambda: _setter("not_found", _probe(fetcher, missing)))
    if take():
        jobs.append(lambda: _setter("llms_txt", _probe(fetcher, f"{origin}/llms.txt")))
    if parts.scheme == "https" and take():
        jobs.append(lambda: _alpn(fetcher, parts.hostname or "", parts.port or 443))
    if not page.icons and take():
        jobs.append(lambda: _setter("favicon", _probe(fetcher, f"{origin}/favicon.ico")))
    code = {*page.stylesheets, *(script.src for script in page.scripts)}
    # iframes are counted as requests but are whole pages of their own: not fetched.
    iframes = set(page.iframes)
    for url in page.resource_urls:
        if url.startswith(("http://", "https://")) and url not in iframes and take():
            jobs.append(_asset_job(fetcher, url, is_code=url in code))

    resources = Resources()
    if not jobs:
        return resources
    with ThreadPoolExecutor(max_workers=min(SUBREQUEST_CONCURRENCY, len(jobs))) as pool:
        for apply in pool.map(lambda job: job(), jobs):
            apply(resources)
    return resources


def _probe(fetcher: Fetcher, url: str, *, method: str = "GET", max_bytes: int = TEXT_FILE_BYTES) -> Probe:
    try:
        return Probe(url, fetched=fetcher.fetch(url, method=method, max_bytes=max_bytes, truncate=True))
    except AnalysisError as exc:
        return Probe(url, error=exc.message)


def _setter(field: str, probe: Probe) -> Callable[[Resources], None]:
    return lambda resources: setattr(resources, field, probe)


def _robots_and_sitemap(fetcher: Fetcher, origin: str, *, with_sitemap: bool) -> Callable[[Resources], None]:
    robots = _probe(fetcher, f"{origin}/robots.txt")
    sitemap = None
    if with_sitemap:
        listed = []
        if robots.ok and robots.fetched is not None and robots.fetched.content_type != "text/html":
            listed = parse_robots(robots.fetched.body.decode("utf-8", errors="replace")).sitemaps
        sitemap = _probe(fetcher, listed[0] if listed else f"{origin}/sitemap.xml")

    def apply(resources: Resources) -> None:
        resources.robots, resources.sitemap = robots, sitemap

    return apply


def _alpn(fetcher: Fetcher, host: str, port: int) -> Callable[[Resources], None]:
    try:
        protocol, error = fetcher.negotiated_protocol(host, port), None
    except AnalysisError as exc:
        protocol, error = None, exc.message

    def apply(resources: Resources) -> None:
        resources.alpn, resources.alpn_error = protocol, error

    return apply


def _asset_job(fetcher: Fetcher, url: str, *, is_code: bool) -> Job:
    def job() -> Callable[[Resources], None]:
        # Code is read to judge minification; for images and media the headers are enough.
        probe = _probe(fetcher, url, max_bytes=CODE_FILE_BYTES) if is_code else _probe(fetcher, url, method="HEAD")
        return lambda resources: resources.assets.__setitem__(url, probe)

    return job
