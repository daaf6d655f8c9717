"""A small website served on 127.0.0.1 for the analysis engine's tests.

Two sites run side by side, each on its own random port: the "good" site behaves
well (custom 404 page, robots.txt, sitemap, llms.txt, compression, modern
images), the "bad" site does everything wrong (soft 404s, robots.txt blocking
everything, no compression, a server header that names its version). Both serve
the same paths, so `/good` and `/bad` can be fetched from either.
"""

import gzip
import html
import json
import shutil
import ssl
import subprocess
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import brotli

from tests.reports.corpus import CORPUS_PAGES

PARAGRAPHS = [
    "Acme Garden Tools has made durable garden tools since 1921. Every spade, rake and hoe leaves our workshop "
    "with a forged steel head and a handle of seasoned ash, because garden tools that bend or snap cost a gardener "
    "far more than they save.",
    "Our spades are the heart of the range. A good spade cuts clean edges in a lawn, lifts heavy clay without "
    "flexing and slices through roots that would stop a cheaper blade. We temper each spade head twice and grind "
    "the edge by hand so that it stays sharp through many seasons of digging.",
    "Rakes come in three widths. The narrow rake reaches between shrubs, the medium rake levels seed beds, and the "
    "wide rake gathers autumn leaves from a whole lawn in a few passes. Every rake has tines riveted through the "
    "head rather than welded, so a stone caught in the soil will not tear a tine loose.",
    "Hoes keep weeds down with very little effort when they are used little and often. The draw hoe chops, the "
    "Dutch hoe slices just under the surface, and the onion hoe works between close rows. Keep the blade sharp "
    "with a few strokes of a file and the hoe will glide through dry soil.",
    "Caring for garden tools is simple. Knock the soil off after use, dry the steel, and wipe it with an oily rag "
    "before storing the tools in a dry shed. Once a year, sand the handles lightly and rub in linseed oil so the "
    "wood stays smooth and does not crack in the winter cold.",
    "We sell our garden tools online and ship them across the country in recycled cardboard. If a spade, rake or "
    "hoe ever fails under normal garden use, send it back and we will repair or replace it, whatever its age. "
    "That promise has stood for a hundred years and we intend to keep it.",
]

BODY_TEXT = "\n".join(f"<p>{paragraph}</p>" for paragraph in PARAGRAPHS * 2)

GOOD_PAGE = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Acme Garden Tools: Durable Spades, Rakes and Hoes Online</title>
<meta name="description" content="Acme Garden Tools sells durable spades, rakes and hoes made from forged steel \
and ash wood, built to last for decades of digging and weeding.">
<link rel="canonical" href="__ORIGIN__/good">
<link rel="alternate" hreflang="en" href="/good">
<link rel="alternate" hreflang="fr" href="/fr/good">
<link rel="alternate" hreflang="x-default" href="/good">
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="/static/style.min.css">
<script src="/static/app.min.js" defer></script>
<meta property="og:title" content="Acme Garden Tools">
<meta property="og:description" content="Durable spades, rakes and hoes.">
<meta property="og:image" content="/images/hero.webp">
<meta name="twitter:card" content="summary_large_image">
<script type="application/ld+json">
{{"@context": "https://schema.org", "@type": "Organization", "name": "Acme"}}
</script>
</head>
<body>
<header>
<nav>
<a href="/good">Home</a>
<a href="/spades">Spades</a>
<a href="/rakes">Rakes</a>
<a href="/hoes">Hoes</a>
<a href="/tool-care">Caring for garden tools</a>
</nav>
</header>
<main>
<h1>Durable garden tools, forged to last</h1>
<img src="/images/hero.webp" alt="A forged steel spade with an ash handle" width="800" height="400">
<h2>Spades, rakes and hoes</h2>
{BODY_TEXT}
<picture><img src="/images/rake.avif" alt="A wide leaf rake" width="400" height="300"></picture>
<h2>Follow our garden</h2>
<p>Read the <a href="/tool-care">guide to caring for garden tools</a>, or see our work on
<a href="https://www.instagram.com/acmegardentools" target="_blank" rel="noopener">Instagram</a> and
<a href="https://github.com/acme-garden" rel="noopener">GitHub</a>.</p>
</main>
<footer><p>Acme Garden Tools, 1 Orchard Lane, Greenfield.</p></footer>
</body>
</html>
"""

BAD_PAGE = """<html>
<head>
<title>Home</title>
<title>Welcome</title>
<meta name="robots" content="noindex, nofollow">
<link rel="canonical" href="/a"><link rel="canonical" href="/b">
<link rel="alternate" hreflang="english" href="/en">
<link rel="stylesheet" href="/static/style.css">
<script src="/static/app.js"></script>
<style>body { color: red; }</style>
</head>
<body>
<h1>Home</h1>
<h1>Another heading</h1>
<center><font color="red">Welcome to my homepage</font></center>
<img src="/images/photo.jpg">
<img src="/images/banner.png" alt="">
<p style="color: blue">Write to webmaster@example.com for questions.</p>
<a href="/Some_Page?id=1&amp;session=2&amp;ref=3">click here</a>
<a href="https://elsewhere.example/" target="_blank">here</a>
<a href="/private" rel="nofollow">Private area</a>
<script src="http://cdn.example/tracker.js"></script>
<iframe src="https://ads.example/banner"></iframe>
<embed src="/intro.swf" type="application/x-shockwave-flash">
</body>
</html>
"""

# Almost empty as served: a script builds the page, tries to reach private addresses and to
# send data, and writes grey-on-white text.
# Laid out by a stylesheet: what only a browser can judge (tap targets, a field the CSS hides).
LAYOUT_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Layout</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body { font: 14px/17px sans-serif; margin: 8px; }
  nav a { display: block; }
  .apart a { display: block; margin-bottom: 30px; }
  .later { display: none; }
</style></head>
<body>
<nav><a href="/one">Stacked one</a><a href="/two">Stacked two</a></nav>
<p>Read <a href="/inline">the inline link</a> in this sentence, and <a href="/next">the next one</a>.</p>
<div class="apart"><a href="/far-one">Far one</a><a href="/far-two">Far two</a></div>
<div class="later"><textarea name="note"></textarea></div>
</body></html>
"""

# What axe-core, under Lighthouse, leaves unjudged and the engine must too: pale text that is off
# the page, clipped, disabled, the label of a disabled field, or a lone character or slash; small
# links in a drawer parked off the page, in a fixed header over the page, or whose icon spills out.
# Only the last paragraph fails its contrast, and no target is too crowded.
OUT_OF_SIGHT_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Out of sight</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body { font: 14px/17px sans-serif; margin: 8px; }
  .pale { color: #bbb; }
  .skip { position: absolute; left: -999px; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0, 0, 0, 0); }
  header { position: fixed; top: 0; left: 0; right: 0; background: #fff; }
  header a, main > a, .drawer a { display: block; }
  main { margin-top: 17px; }
  .drawer { position: absolute; left: -300px; width: 250px; }
  .tiny { display: inline-block; width: 16px; height: 16px; }
  .icon { display: block; width: 30px; height: 30px; background: #036; }
</style></head>
<body>
<a class="skip pale" href="#main">Skip to content</a>
<header><a href="/home">Home</a></header>
<main id="main">
<a href="/news">News</a>
<nav class="drawer"><a href="/drawer-one">Drawer one</a><a href="/drawer-two">Drawer two</a></nav>
<p>Price <span class="pale">/</span> unit <span class="pale">0</span></p>
<span class="visually-hidden pale">Hidden label</span>
<fieldset disabled><legend class="pale">Unavailable</legend>
<label class="pale">Gift wrap <input type="checkbox"></label></fieldset>
<label class="pale" for="later">Deliver later</label> <input id="later" disabled>
<p class="pale">Pale grey text on white.</p>
<p><a class="tiny" href="/cart" aria-label="Cart"><span class="icon"></span></a><a class="tiny" href="/account"
  aria-label="Account"><span class="icon"></span></a></p>
</main></body></html>
"""


# A page that paints, then pushes its text down with a late banner (a layout shift) and keeps the
# main thread busy with a fixed amount of work: a few hundred ms of CPU, a TBT far over 0 at
# Lighthouse's 4x slowdown, however busy the machine is. The banner waits for the first paint
# itself, not for a fixed time: on a loaded machine (the browser runs at idle priority) a banner
# added before anything was painted moves nothing, and the CLS would be 0.
BUSY_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Busy page</title></head>
<body><main><h1>Busy page</h1><p>Text that a late banner pushes down the page.</p></main>
<script>
function pushDown() {
  const banner = document.createElement("div");
  banner.style.height = "400px";
  banner.textContent = "Late banner";
  document.body.prepend(banner);
  setTimeout(() => {
    let sum = 0;
    for (let i = 0; i < 2e8; i++) { sum += i % 7; }
    document.title = "Busy page " + (sum > 0);
  }, 100);
}
new PerformanceObserver((list, observer) => {
  if (list.getEntriesByName("first-contentful-paint").length) {
    observer.disconnect();
    setTimeout(pushDown, 100);
  }
}).observe({type: "paint", buffered: true});
</script></body></html>
"""

SCRIPTED_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Spades built by a script</title></head>
<body><div id="app"></div>
<script>
document.getElementById("app").innerHTML =
  '<h1>Forged garden spades</h1><p style="color:#bbb">Pale grey text on white.</p>' +
  '<a href="/spades">Spades</a><a href="/rakes">Rakes</a><img src="/images/hero.webp" alt="A spade">';
fetch("http://10.0.0.1/secret").catch(() => {});
fetch("/collect", {method: "POST", body: "visitor=1"}).catch(() => {});
new Image().src = "http://192.168.1.1/pixel.gif";
try { new WebSocket("ws://127.0.0.1:9/socket"); } catch (e) {}
</script>
</body></html>
"""

# WebRTC aimed at a private address (issue 49): STUN and TURN servers on 127.0.0.2, whose ports the
# query names, asked for from the page, an srcdoc iframe and an about:blank one the page scripts. A
# slow image keeps the page loading while ICE gathers candidates.
WEBRTC_SCRIPT = """
const pc = new RTCPeerConnection({iceServers: [
  {urls: "stun:127.0.0.2:__STUN__"},
  {urls: ["turn:127.0.0.2:__TURN__", "turn:127.0.0.2:__TCP__?transport=tcp", "turns:127.0.0.2:__TCP__"],
   username: "user", credential: "secret"},
]});
pc.createDataChannel("probe");
pc.createOffer().then((offer) => pc.setLocalDescription(offer));
"""
WEBRTC_PAGE = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Calls</title></head>
<body><h1>Call us</h1><img src="/slow?delay=3" alt="">
<iframe srcdoc="<script>{html.escape(WEBRTC_SCRIPT)}</script>"></iframe><iframe id="blank"></iframe>
<script>{WEBRTC_SCRIPT}
document.getElementById("blank").contentWindow.eval({json.dumps(WEBRTC_SCRIPT)});
</script></body></html>
"""

# Anchors without href, as menus and folding sidebars make them (mdBook's "toggle"): Lighthouse's
# crawlable-anchors fails the one a script listens to (through its parent) and the one with a target.
TOGGLES_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Chapters</title></head>
<body><ol id="chapters"><li><a href="/one">One</a> <a class="toggle">Fold</a></li></ol>
<p><a class="placeholder">Not a link yet</a> <a id="top"></a> <a role="button" onclick="void 0">Menu</a>
<a target="_blank">Nowhere</a></p>
<script>document.getElementById("chapters").addEventListener("click", () => {});</script>
</body></html>
"""

# Says what an earlier visit left behind (a cookie, local storage), then leaves both: a browser that
# rendered it before in the same context would show them the second time.
REMEMBERING_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Welcome back</title></head>
<body><h1>Welcome back</h1><p id="memory"></p>
<script>
  document.getElementById("memory").textContent =
    `cookie: ${document.cookie || "none"}; storage: ${localStorage.getItem("visited") || "none"}`;
  document.cookie = "visited=yes; max-age=3600; path=/";
  localStorage.setItem("visited", "yes");
</script>
</body></html>
"""

CUSTOM_404 = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Page not found</title></head>
<body><h1>Sorry, this page does not exist</h1><p><a href="/good">Back to the home page</a></p></body></html>
"""

SITEMAP = """<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>{base}/good</loc></url>
<url><loc>{base}/spades</loc></url>
</urlset>
"""

LLMS_TXT = "# Acme Garden Tools\n\n> Durable spades, rakes and hoes.\n\n- [Tool care](/tool-care): tool care\n"

MINIFIED_CSS = "body{margin:0;font:16px/1.5 serif;color:#222}h1{font-size:2rem}" * 40
# Hand-written files whose comments and indentation differ from rule to rule, so that gzip
# alone does not make minifying them pointless.
UNMINIFIED_CSS = "".join(
    f"/* Card variant {n}: spacing grows with the variant, colours step through the palette. */\n"
    f".card-{n} {{\n    margin: {n}px auto;\n    color: #{n * 7919 % 4096:03x};\n}}\n\n"
    for n in range(800)
)
MINIFIED_JS = "(function(){var a=document.querySelectorAll('a');for(var i=0;i<a.length;i++){a[i].dataset.n=i}})();" * 40
UNMINIFIED_JS = "".join(
    f"// Number the links of section {n} so that the table of contents can point at them.\n"
    f"function numberSection{n}(links) {{\n    for (const link of links) {{\n"
    f"        link.dataset.n = {n};\n    }}\n}}\n\n"
    for n in range(800)
)

# Enough bytes to look like real images to a size check; the content is never decoded.
ASSETS = {
    "/static/style.min.css": ("text/css", MINIFIED_CSS.encode()),
    "/static/style.css": ("text/css", UNMINIFIED_CSS.encode()),
    "/static/app.min.js": ("text/javascript", MINIFIED_JS.encode()),
    "/static/app.js": ("text/javascript", UNMINIFIED_JS.encode()),
    "/images/hero.webp": ("image/webp", b"RIFF\x00\x00\x00\x00WEBPVP8 " + b"\x00" * 2000),
    "/images/rake.avif": ("image/avif", b"\x00\x00\x00\x20ftypavif" + b"\x00" * 2000),
    "/images/photo.jpg": ("image/jpeg", b"\xff\xd8\xff\xe0" + b"\x00" * 3000),
    "/images/banner.png": ("image/png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 3000),
    "/favicon.ico": ("image/x-icon", b"\x00\x00\x01\x00" + b"\x00" * 300),
    "/document.pdf": ("application/pdf", b"%PDF-1.7\n" + b"\x00" * 500),
}

HUGE_BODY_BYTES = 6 * 1024 * 1024


class TestSiteHandler(BaseHTTPRequestHandler):
    __test__ = False  # not a test class, despite the name
    server: "TestSiteServer"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass  # keep pytest output clean

    def version_string(self) -> str:
        return "Apache/2.4.1 (Unix) PHP/5.3.3" if self.server.kind == "bad" else "TestSite"

    def do_HEAD(self) -> None:
        self.handle_path(send_body=False)

    def do_GET(self) -> None:
        self.handle_path(send_body=True)

    def do_POST(self) -> None:
        self.server.requests.append((self.command, self.path))
        self.send_body = True
        self.reply(405, "text/plain", b"Method not allowed")

    def handle_path(self, *, send_body: bool) -> None:
        self.send_body = send_body
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        self.server.requests.append((self.command, self.path))
        self.server.user_agents.append(self.headers.get("User-Agent", ""))
        hit = Hit(path, query, f"{self.server.scheme}://127.0.0.1:{self.server.server_port}", self.server.kind == "bad")
        if self.route(hit) is False:
            self.not_found(hit)

    def route(self, hit: "Hit") -> bool | None:
        """Answer `hit` by its route: None when answered, False when the path is not served here."""
        path = hit.path
        route = ROUTES.get(path) or next((route for prefix, route in PREFIX_ROUTES if path.startswith(prefix)), None)
        # A route answers None, or False when the path is not served on this site (kind).
        return False if route is None else route(self, hit)

    # Routes: each answers one path (or prefix) of the table ROUTES below the class.

    def good(self, hit: "Hit") -> None:
        if hit.bad:
            self.html(GOOD_PAGE)
        else:
            self.html(GOOD_PAGE, compress=True, headers=SECURE_HEADERS)

    def corpus(self, hit: "Hit") -> bool | None:
        name = hit.path.removeprefix("/corpus/")
        if hit.bad or name not in CORPUS_PAGES:
            return False
        # Real pages of public websites, served as a static host such as GitHub Pages would.
        self.html_bytes(
            CORPUS_PAGES[name].read_bytes(), headers=CORPUS_HEADERS if self.server.scheme == "https" else {}
        )
        return None

    def small_print(self, hit: "Hit") -> None:
        viewport = '<meta name="viewport" content="width=device-width">'
        body = '<p style="font-size: 16px">Headline</p>'
        body += '<p style="font-size: 10px">All the terms, in small print.</p>'
        self.html(f"<!DOCTYPE html><html><head><title>Terms</title>{viewport}</head><body>{body}</body></html>")

    def never_loads(self, hit: "Hit") -> None:
        self.html('<!DOCTYPE html><html><head><title>Slow</title></head><body><img src="/slow-body"></body></html>')

    def private_assets(self, hit: "Hit") -> None:
        body = '<script src="http://10.0.0.1/app.js" defer></script><img src="/images/missing.webp" alt="">'
        self.html(f"<!DOCTYPE html><html><head><title>Assets</title></head><body>{body}</body></html>")

    def robots(self, hit: "Hit") -> None:
        if hit.bad:
            self.reply(200, "text/plain", b"User-agent: *\nDisallow: /\n")
        else:
            robots = f"User-agent: *\nDisallow: /private\nAllow: /\n\nSitemap: {hit.base}/sitemap-index.xml\n"
            self.reply(200, "text/plain", robots.encode())

    def sitemap(self, hit: "Hit") -> bool | None:
        if hit.bad:
            return False
        self.reply(200, "application/xml", SITEMAP.format(base=hit.base).encode())
        return None

    def llms_txt(self, hit: "Hit") -> bool | None:
        if hit.bad:
            return False
        self.reply(200, "text/plain; charset=utf-8", LLMS_TXT.encode())
        return None

    def asset(self, hit: "Hit") -> bool | None:
        if hit.bad and hit.path == "/favicon.ico":
            return False
        content_type, body = ASSETS[hit.path]
        self.reply(200, content_type, body)
        return None

    def redirect_loop(self, hit: "Hit") -> None:
        hop = int(hit.path.rsplit("/", 1)[1])
        self.redirect(f"/redirect/loop/{hop + 1}")

    def webrtc(self, hit: "Hit") -> None:
        page = WEBRTC_PAGE
        for name in ("stun", "turn", "tcp"):
            page = page.replace(f"__{name.upper()}__", str(int(hit.query[name][0])))
        self.html(page)

    def slow(self, hit: "Hit") -> None:
        time.sleep(float(hit.query.get("delay", ["3"])[0]))
        self.html(GOOD_PAGE)

    def bad_encoding(self, hit: "Hit") -> None:
        body = GOOD_PAGE.encode().replace(b"forged to last", b"forged \xff\xfe to last")
        self.reply(200, "text/html; charset=utf-8", body)

    def latin1(self, hit: "Hit") -> None:
        body = GOOD_PAGE.replace("forged to last", "forgés to last")
        body = body.replace('charset="utf-8"', 'charset="iso-8859-1"')
        self.reply(200, "text/html", body.encode("iso-8859-1"))

    def not_found(self, hit: "Hit") -> None:
        if hit.bad:
            # A "soft 404": the bad site answers 200 to any path.
            self.html(BAD_PAGE)
        else:
            self.html(CUSTOM_404, status=404)

    def reply(self, status: int, content_type: str | None, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.send_body:
            self.wfile.write(body)

    def html_bytes(self, body: bytes, *, headers: dict[str, str], content_type: str = "text/html") -> None:
        """A page (or another text file) sent as it is stored (its own charset), gzipped if the client accepts."""
        headers = dict(headers)
        accepted = self.headers.get("Accept-Encoding", "")
        if "gzip" in accepted:
            body = gzip.compress(body)
            headers.update({"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})
        self.reply(200, content_type, body, headers)

    def html(
        self,
        page: str,
        *,
        status: int = 200,
        compress: bool = False,
        encoding: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        origin = f"{self.server.scheme}://127.0.0.1:{self.server.server_port}"
        body = page.replace("__ORIGIN__", origin).encode()
        headers = dict(headers or {})
        accepted = self.headers.get("Accept-Encoding", "")
        if encoding is None and compress:
            encoding = "br" if "br" in accepted else "gzip" if "gzip" in accepted else None
        if encoding == "gzip":
            body = gzip.compress(body)
        elif encoding == "br":
            body = brotli.compress(body)
        if encoding:
            headers["Content-Encoding"] = encoding
            headers["Vary"] = "Accept-Encoding"
        self.reply(status, "text/html; charset=utf-8", body, headers)

    def redirect(self, location: str, status: int = 302) -> None:
        self.reply(status, "text/html", b"", {"Location": location})

    def trickle(self) -> None:
        """Headers at once, then a byte of body every half second."""
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", "1000")
        self.end_headers()
        try:
            for _ in range(1000):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.5)
        except OSError:
            pass  # the client gave up, as it should

    def trickle_headers(self) -> None:
        """The status line at once, then a byte of headers every 0.3 s."""
        try:
            self.wfile.write(b"HTTP/1.1 200 OK\r\n")
            for byte in b"Content-Type: text/html\r\nX-Slow: " + b"y" * 200 + b"\r\n\r\n":
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(0.3)
        except OSError:
            pass  # the client gave up, as it should

    def huge(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(HUGE_BODY_BYTES))
        self.end_headers()
        if not self.send_body:
            return
        chunk = b"<p>" + b"x" * 65_529 + b"</p>"
        try:
            for _ in range(HUGE_BODY_BYTES // len(chunk)):
                self.wfile.write(chunk)
            self.wfile.write(b" " * (HUGE_BODY_BYTES % len(chunk)))
        except OSError:
            pass  # the client stopped reading at its size cap


@dataclass(frozen=True)
class Hit:
    """The request a route answers: its path and query, the site's base URL, and whether it is the bad site."""

    path: str
    query: dict[str, list[str]]
    base: str
    bad: bool


H = TestSiteHandler
# Path → route. A route that returns False leaves the path to not_found (the bad site's soft 404).
ROUTES: dict[str, Callable[[TestSiteHandler, Hit], bool | None]] = {
    "/": H.good,
    "/good": H.good,
    "/scripted": lambda handler, hit: handler.html(SCRIPTED_PAGE),
    "/busy": lambda handler, hit: handler.html(BUSY_PAGE),
    "/layout": lambda handler, hit: handler.html(LAYOUT_PAGE),
    "/toggles": lambda handler, hit: handler.html(TOGGLES_PAGE),
    "/webrtc": H.webrtc,
    "/remembers": lambda handler, hit: handler.html(REMEMBERING_PAGE),
    "/out-of-sight": lambda handler, hit: handler.html(OUT_OF_SIGHT_PAGE),
    "/small-print": H.small_print,
    "/never-loads": H.never_loads,
    "/private-assets": H.private_assets,
    "/bad": lambda handler, hit: handler.html(
        BAD_PAGE, headers={"X-Robots-Tag": "noindex", "X-Powered-By": "PHP/5.3.3"}
    ),
    "/robots.txt": H.robots,
    "/sitemap-index.xml": H.sitemap,
    "/llms.txt": H.llms_txt,
    **dict.fromkeys(ASSETS, H.asset),
    "/gzip": lambda handler, hit: handler.html(GOOD_PAGE, encoding="gzip"),
    "/brotli": lambda handler, hit: handler.html(GOOD_PAGE, encoding="br"),
    "/redirect/chain": lambda handler, hit: handler.redirect("/redirect/chain/2"),
    "/redirect/chain/2": lambda handler, hit: handler.redirect(f"{hit.base}/redirect/chain/3", status=301),
    "/redirect/chain/3": lambda handler, hit: handler.redirect("/good", status=307),
    "/redirect/to": lambda handler, hit: handler.redirect(hit.query["location"][0]),
    "/slow": H.slow,
    "/slow-body": lambda handler, hit: handler.trickle(),
    "/slow-headers": lambda handler, hit: handler.trickle_headers(),
    "/huge": lambda handler, hit: handler.huge(),
    "/gzip-bomb": lambda handler, hit: handler.reply(200, "text/html", HUGE_GZIP, headers={"Content-Encoding": "gzip"}),
    "/brotli-bomb": lambda handler, hit: handler.reply(
        200, "text/html", BROTLI_BOMB, headers={"Content-Encoding": "br"}
    ),
    "/deflate": lambda handler, hit: handler.reply(
        200, "text/html; charset=utf-8", zlib.compress(GOOD_PAGE.encode()), {"Content-Encoding": "deflate"}
    ),
    "/corrupt-gzip": lambda handler, hit: handler.reply(
        200, "text/html", b"\x1f\x8b\x08\x00garbage" * 10, headers={"Content-Encoding": "gzip"}
    ),
    "/zstd": lambda handler, hit: handler.reply(200, "text/html", b"(\xb5/\xfd", headers={"Content-Encoding": "zstd"}),
    "/bad-encoding": H.bad_encoding,
    "/unknown-charset": lambda handler, hit: handler.reply(200, "text/html; charset=x-made-up", GOOD_PAGE.encode()),
    "/latin1": H.latin1,
    "/no-content-type": lambda handler, hit: handler.reply(200, None, GOOD_PAGE.encode()),
}
# Prefix → route, for the paths that carry a value; tried in order after ROUTES.
PREFIX_ROUTES: list[tuple[str, Callable[[TestSiteHandler, Hit], bool | None]]] = [
    ("/corpus/", H.corpus),
    ("/redirect/loop/", H.redirect_loop),
    ("/status/", lambda handler, hit: handler.html(CUSTOM_404, status=int(hit.path.rsplit("/", 1)[1]))),
]


CORPUS_HEADERS = {"Strict-Transport-Security": "max-age=31556952"}

SECURE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'",
    "Strict-Transport-Security": "max-age=31536000; includeSubDomains",
}

HUGE_GZIP = gzip.compress(b"<p>" + b" " * HUGE_BODY_BYTES + b"</p>")


def brotli_bomb(megabytes: int) -> bytes:
    """A few hundred bytes that inflate to `megabytes` MB of spaces."""
    compressor = brotli.Compressor(quality=5)
    chunk = b" " * 1024 * 1024
    return b"".join([*(compressor.process(chunk) for _ in range(megabytes)), compressor.finish()])


# httpx alone would inflate this whole in one step; the engine must stop at its cap.
BROTLI_BOMB = brotli_bomb(256)


class TestSiteServer(ThreadingHTTPServer):
    __test__ = False
    daemon_threads = True

    def __init__(
        self, kind: str, tls: ssl.SSLContext | None = None, port: int = 0, handler: type = TestSiteHandler
    ) -> None:
        super().__init__(("127.0.0.1", port), handler)
        self.kind = kind
        self.requests: list[tuple[str, str]] = []
        self.user_agents: list[str] = []
        self.scheme = "http" if tls is None else "https"
        if tls is not None:
            # The handshake happens in the handler's thread, so one stuck client cannot block the others.
            self.socket = tls.wrap_socket(self.socket, server_side=True, do_handshake_on_connect=False)

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # clients that hang up early (the ALPN probe, capped reads) are expected here


class TestSite:
    """The good and the bad site, running until `close()`.

    Given a certificate authority from `make_certificates()`, the good site is also
    served over HTTPS as site "tls", offering HTTP/2 by ALPN (it then speaks HTTP/1.1,
    which is all the engine's probe needs to see).
    """

    __test__ = False

    def __init__(
        self,
        certificates: "Certificates | None" = None,
        ports: dict[str, int] | None = None,
        handler: type = TestSiteHandler,
    ) -> None:
        """`ports` pins a site to a port (e.g. {"tls": 18343} for a benchmark); others get a free one.

        `handler` answers the requests: a subclass of TestSiteHandler may serve more (bench/engine_corpus.py).
        """
        self.certificates = certificates
        ports = ports or {}
        self.servers = {
            kind: TestSiteServer(kind, port=ports.get(kind, 0), handler=handler) for kind in ("good", "bad")
        }
        if certificates is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(certificates.server_cert, certificates.server_key)
            context.set_alpn_protocols(["h2", "http/1.1"])
            self.servers["tls"] = TestSiteServer("good", tls=context, port=ports.get("tls", 0), handler=handler)
            # The same site for browsers, which would hold the "tls" site to its offer of HTTP/2.
            browser_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            browser_context.load_cert_chain(certificates.server_cert, certificates.server_key)
            self.servers["tls-http1"] = TestSiteServer(
                "good", tls=browser_context, port=ports.get("tls-http1", 0), handler=handler
            )
        self.threads = [
            threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
            for server in self.servers.values()
        ]
        for thread in self.threads:
            thread.start()

    def url(self, path: str = "/good", *, site: str = "good") -> str:
        """The absolute URL of `path` on the good (default), the bad or the tls site."""
        scheme = "https" if site.startswith("tls") else "http"
        return f"{scheme}://127.0.0.1:{self.servers[site].server_port}{path}"

    def requests(self, site: str = "good") -> list[tuple[str, str]]:
        """The (method, path) pairs the site has answered, oldest first."""
        return list(self.servers[site].requests)

    def user_agents(self, site: str = "good") -> list[str]:
        """The User-Agent header of each request, in the order of `requests()`."""
        return list(self.servers[site].user_agents)

    def close(self) -> None:
        for server in self.servers.values():
            server.shutdown()
            server.server_close()


@dataclass(frozen=True)
class Certificates:
    ca_cert: Path
    server_cert: Path
    server_key: Path


def make_certificates(directory: Path) -> Certificates | None:
    """A throw-away CA and a certificate for 127.0.0.1 signed by it (None without openssl)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        return None
    ca_key, ca_cert = directory / "ca.key", directory / "ca.pem"
    key, csr, cert = directory / "server.key", directory / "server.csr", directory / "server.pem"
    extensions = directory / "server.ext"
    extensions.write_text(
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=critical,CA:FALSE\n"
        "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
        "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid,issuer\n"
    )
    new_key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    commands = [
        [openssl, "req", "-x509", *new_key, "-keyout", ca_key, "-out", ca_cert, "-days", "2", "-subj", "/CN=Test CA",
         "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
        [openssl, "req", *new_key, "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1"],
        [openssl, "x509", "-req", "-in", csr, "-CA", ca_cert, "-CAkey", ca_key, "-CAcreateserial", "-out", cert,
         "-days", "2", "-extfile", extensions],
    ]  # fmt: skip
    for command in commands:
        subprocess.run([str(part) for part in command], check=True, capture_output=True)
    return Certificates(ca_cert=ca_cert, server_cert=cert, server_key=key)
