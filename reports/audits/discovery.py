"""Which URLs an audit's crawl visits: same-host links and sitemap entries that robots.txt allows.

robots.txt is read with the report engine's RFC 9309 reader (reports/analysis/robots.py);
Crawl-delay, which RFC 9309 leaves out but many sites still set, is read here. Every fetch
goes through the engine's Fetcher, so through its SSRF guard, time budget and size cap.
"""

import re
from html import unescape
from urllib.parse import urldefrag, urljoin, urlsplit, urlunsplit

from django.conf import settings

from reports.analysis.errors import AnalysisError
from reports.analysis.fetch import Fetcher
from reports.analysis.robots import Robots, parse_robots

# A sitemap is read up to this size, and at most this many sitemaps (an index and its children);
# the pages they list are read up to REPORTS_AUDIT_MAX_SITEMAP_URLS (see `read_site`).
SITEMAP_BYTES = 2 * 1024 * 1024
MAX_SITEMAPS = 5
ROBOTS_BYTES = 512 * 1024
# A Crawl-delay above this is taken as this: a site asking for an hour between pages would
# hold an audit for weeks; the pages it would not let us read in time are simply fewer.
MAX_CRAWL_DELAY = 30.0
LOC = re.compile(r"<loc>\s*([^<\s]+)\s*</loc>", re.IGNORECASE)


def origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port


def normalized(url: str, base: str) -> str | None:
    """`url` made absolute against `base`, without its fragment; None if it is not an http(s) URL."""
    try:
        absolute, _ = urldefrag(urljoin(base, url.strip()))
        parts = urlsplit(absolute)
        parts.port  # noqa: B018  (raises ValueError on a bad port)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname or "@" in parts.netloc:
        return None
    return urlunsplit(parts._replace(path="/")) if not parts.path else absolute


def same_site(url: str, start: str) -> bool:
    """Whether `url` is on the start page's host (and port); http and https of one host count as one site."""
    _, host, port = origin(url)
    start_scheme, start_host, start_port = origin(start)
    default = {"http": 80, "https": 443}
    return host == start_host and (port or default.get(origin(url)[0])) == (start_port or default.get(start_scheme))


def allowed(robots: Robots, url: str) -> bool:
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return robots.allows(settings.REPORTS_USER_AGENT, path)


def crawl_delay(text: str, user_agent: str) -> float:
    """The Crawl-delay of the group that applies to `user_agent` (RFC 9309's group choice), else 0."""
    delays: dict[str, float] = {}
    agents: list[str] = []
    in_rules = False
    for raw_line in text.splitlines():
        name, separator, value = raw_line.split("#", 1)[0].strip().partition(":")
        if not separator:
            continue
        name, value = name.strip().lower(), value.strip()
        if name == "user-agent":
            if in_rules:
                agents, in_rules = [], False
            agents.append(value.lower())
        elif name == "crawl-delay":
            in_rules = True
            try:
                delay = float(value)
            except ValueError:
                continue
            for agent in agents:
                delays[agent] = delay
        elif name in ("allow", "disallow"):
            in_rules = True
    agent = user_agent.lower()
    specific = [token for token in delays if token != "*" and token in agent]
    delay = delays[max(specific, key=len)] if specific else delays.get("*", 0.0)
    return min(max(delay, 0.0), MAX_CRAWL_DELAY)


def read_site(start: str) -> tuple[str, list[str]]:
    """The site's robots.txt text ("" when it has none) and the same-site URLs its sitemaps list.

    At most REPORTS_AUDIT_MAX_SITEMAP_URLS of them: four sitemaps of 127,000 entries each once
    made a start hold hundreds of MB and look them all up in one query, which the database refused.
    """
    max_urls = settings.REPORTS_AUDIT_MAX_SITEMAP_URLS
    scheme, host, port = origin(start)
    root = f"{scheme}://{host}" + (f":{port}" if port else "")
    fetcher = Fetcher()
    try:
        robots_text = _text(fetcher, f"{root}/robots.txt", ROBOTS_BYTES)
        robots = parse_robots(robots_text)
        queue = [url for url in robots.sitemaps if same_site(url, start)][:MAX_SITEMAPS] or [f"{root}/sitemap.xml"]
        pages: list[str] = []
        seen: set[str] = set()
        while queue and len(seen) < MAX_SITEMAPS and len(pages) < max_urls:
            sitemap = queue.pop(0)
            if sitemap in seen:
                continue
            seen.add(sitemap)
            body = _text(fetcher, sitemap, SITEMAP_BYTES)
            # An index lists sitemaps, of which only MAX_SITEMAPS are ever read.
            found, limit = (queue, MAX_SITEMAPS) if "<sitemapindex" in body.lower() else (pages, max_urls)
            for match in LOC.finditer(body):
                if len(found) >= limit:
                    break
                url = normalized(unescape(match.group(1)), sitemap)
                if url and same_site(url, start):
                    found.append(url)
    finally:
        fetcher.close()
    return robots_text, list(dict.fromkeys(pages))


def _text(fetcher: Fetcher, url: str, max_bytes: int) -> str:
    """The body of `url` as text, or "" when it cannot be fetched or is not a 2xx answer (no file, then)."""
    try:
        fetched = fetcher.fetch(url, max_bytes=max_bytes, truncate=True)
    except AnalysisError:
        return ""
    return fetched.body.decode("utf-8", "replace") if fetched.ok else ""


def links_to_follow(links: list[str], start: str, robots: Robots) -> list[str]:
    """The page's links that the crawl may visit: same site, allowed by robots.txt, each once.

    Only the page's first REPORTS_AUDIT_MAX_LINKS_PER_PAGE links are read: a page of 262,000
    links once made one lookup of them all, which the database refused, again on every retry.
    """
    found = []
    for link in links[: settings.REPORTS_AUDIT_MAX_LINKS_PER_PAGE]:
        url = normalized(link, start)
        if url and same_site(url, start) and allowed(robots, url):
            found.append(url)
    return list(dict.fromkeys(found))
