"""A small website for site audits' tests and benchmark, served on 127.0.0.1.

`AuditSite()` serves:
- `/robots.txt`: disallows `/private/`, names the sitemap;
- `/sitemap.xml`: `/`, `/from-sitemap` (linked from nowhere else) and `/private/in-sitemap`;
- `/`: links to `/a`, `/b`, `/private/secret`, `/loop` (a redirect loop), `/missing` (404),
  `/error` (500), `/file.pdf` (not HTML), `/never` (never answers), `/to-private` (redirects to
  a loopback address the SSRF guard refuses) and to other hosts (`http://10.1.2.3/admin`, a
  private address, and `http://other.example/`);
- `/a` → `/b`, `/c?x=1`, `/a#top`; `/b`, `/c`, `/from-sitemap`: plain pages;
- `/many/<n>` (for `pages=N`): a chain of N pages, each linking to the next and ten others.

`files` serves any other body at a path (e.g. a huge sitemap), before the routes above.

It records every request (`requests`) and the most page fetches in flight at once (`peak`).
"""

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} — Audit test site with a long enough title</title>
<meta name="description" content="A page of the audit test site, long enough to be a reasonable description of it.">
</head><body><h1>{title}</h1><p>{text}</p>{links}</body></html>"""
TEXT = "Garden tools, spades and rakes. " * 30


class Handler(BaseHTTPRequestHandler):
    server: "AuditSiteServer"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.serve(body=True)

    def do_HEAD(self) -> None:
        self.serve(body=False)

    def serve(self, *, body: bool) -> None:
        site = self.server.site
        path = self.path
        site.record(self.command, path)
        route = urlsplit(path).path
        if route in site.files:
            content_type, data = site.files[route]
            return self.reply(200, content_type, data, body)
        if route == "/robots.txt":
            robots = f"User-agent: *\nDisallow: /private/\n{site.extra_robots}Sitemap: {site.url('/sitemap.xml')}\n"
            return self.reply(200, "text/plain", robots, body)
        if route == "/sitemap.xml":
            locations = "".join(f"<url><loc>{site.url(p)}</loc></url>" for p in site.sitemap)
            xml = (
                f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locations}</urlset>'
            )
            return self.reply(200, "application/xml", xml, body)
        if route == "/never":
            site.stopping.wait(30)  # longer than the fetch budget the tests set
            return None
        if route in ("/loop", "/loop2"):
            return self.redirect("/loop2" if route == "/loop" else "/loop")
        if route == "/to-private":
            return self.redirect(f"http://127.0.0.2:{self.server.server_port}/inside")
        if route == "/missing":
            return self.reply(404, "text/html", "<!DOCTYPE html><title>Not found</title>", body)
        if route == "/error":
            return self.reply(500, "text/html", "<!DOCTYPE html><title>Error</title>", body)
        if route == "/file.pdf":
            return self.reply(200, "application/pdf", "%PDF-1.4 not really", body)
        links = site.links.get(route)
        if route.startswith("/many/"):
            links = site.many_links(route)
        if links is None:
            return self.reply(404, "text/html", "<!DOCTYPE html><title>Not found</title>", body)
        with site.in_flight():
            if site.page_delay:
                time.sleep(site.page_delay)
            html = PAGE.format(
                title=route.strip("/") or "Home",
                text=TEXT,
                links="".join(f'<a href="{href}">Link to {href}</a> ' for href in links),
            )
            return self.reply(200, "text/html; charset=utf-8", html, body)

    def reply(self, status: int, content_type: str, text: str | bytes, body: bool) -> None:
        data = text if isinstance(text, bytes) else text.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if body:
            self.wfile.write(data)

    def redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()


class AuditSiteServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, site: "AuditSite", port: int) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.site = site


class AuditSite:
    __test__ = False

    def __init__(self, *, host: str = "localhost", port: int = 0, pages: int = 0, page_delay: float = 0) -> None:
        self.host = host
        self.pages = pages
        self.page_delay = page_delay
        self.extra_robots = ""
        self.sitemap = ["/", "/from-sitemap", "/private/in-sitemap"]
        self.files: dict[str, tuple[str, bytes]] = {}  # path → (content type, body), served before the rest
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.requests: list[tuple[str, str]] = []
        self.current = 0
        self.peak = 0
        self.page_starts: list[float] = []  # time.monotonic() of each page fetch
        self.server = AuditSiteServer(self, port)
        self.links = {
            "/": [
                "/a",
                "/b",
                "/private/secret",
                "/loop",
                "/missing",
                "/error",
                "/file.pdf",
                "/never",
                "/to-private",
                "http://10.1.2.3/admin",
                "http://other.example/",
                "mailto:shop@example.com",
            ],
            "/a": ["/b", "/c?x=1", "/a#top"],
            "/b": ["/"],
            "/c": ["/a"],
            "/from-sitemap": [],
            "/private/secret": [],
            "/private/in-sitemap": [],
        }
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def url(self, path: str = "/") -> str:
        return f"http://{self.host}:{self.server.server_port}{path}"

    def record(self, method: str, path: str) -> None:
        with self.lock:
            self.requests.append((method, path))

    def fetched(self, path: str) -> bool:
        return any(requested == path for method, requested in self.requests if method == "GET")

    def many_links(self, route: str) -> list[str] | None:
        try:
            number = int(route.rsplit("/", 1)[1])
        except ValueError:
            return None
        if not 0 <= number < self.pages:
            return None
        return [f"/many/{(number * 7 + step) % self.pages}" for step in range(1, 11)]

    def in_flight(self) -> "_InFlight":
        return _InFlight(self)

    def close(self) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()


class _InFlight:
    def __init__(self, site: AuditSite) -> None:
        self.site = site

    def __enter__(self) -> None:
        with self.site.lock:
            self.site.page_starts.append(time.monotonic())
            self.site.current += 1
            self.site.peak = max(self.site.peak, self.site.current)

    def __exit__(self, *exc: object) -> None:
        with self.site.lock:
            self.site.current -= 1
