"""Performance checks: how much the page weighs and how fast it arrives."""

import re
import zlib
from urllib.parse import urlsplit

from reports.analysis import lab
from reports.analysis.checks.base import LOW, MEDIUM, Category, Outcome, capped, limit
from reports.analysis.context import Context

category = Category("performance")

COMPRESSIONS = {"gzip", "br", "deflate", "zstd", "compress"}
MODERN_IMAGE_TYPES = {"image/avif", "image/webp", "image/svg+xml"}
MODERN_IMAGE_EXTENSIONS = {".avif", ".webp", ".svg"}
# Comments and the whitespace around code, which minifiers remove; used to estimate their saving.
COMMENT_RE = re.compile(rb"/\*.*?\*/|^\s*//[^\n]*$", re.DOTALL | re.MULTILINE)
WHITESPACE_RE = re.compile(rb"\s+")


def gzipped_size(data: bytes) -> int:
    """The size of `data` gzipped at the level servers commonly use (6)."""
    return len(zlib.compress(data, 6))


@category.check("text_compression", MEDIUM)
def text_compression(context: Context) -> Outcome:
    """The page is sent compressed when compressing would save at least 1400 bytes (one TCP packet;
    Lighthouse `uses-text-compression` uses the same floor)."""
    document = context.document
    encoding = document.headers.get("content-encoding", "").strip().lower() or None
    value = {"encoding": encoding, "transferred": document.transferred_bytes, "size": len(document.body)}
    if encoding in COMPRESSIONS:
        return Outcome(value)
    saving = len(document.body) - gzipped_size(document.body)
    value["gzip_saving"] = saving
    minimum = context.thresholds["min_compression_saving_bytes"]
    return Outcome(value, {"missing": limit(minimum=minimum, current=saving)} if saving >= minimum else {})


@category.check("load_time", MEDIUM)
def load_time(context: Context) -> Outcome:
    """The HTML arrives within `load_time_ms` (2 s), redirects included."""
    current, maximum = context.document.total_ms, context.thresholds["load_time_ms"]
    return Outcome(current, {"too_slow": limit(maximum=maximum, current=current)} if current > maximum else {})


@category.check("page_size", MEDIUM)
def page_size(context: Context) -> Outcome:
    """The HTML weighs at most `max_page_bytes` (330 kB) on the wire: what the visitor downloads
    (Lighthouse `total-byte-weight` also counts transfer sizes). A long page sent compressed passes."""
    document = context.document
    current, maximum = document.transferred_bytes or len(document.body), context.thresholds["max_page_bytes"]
    value = {"transferred": current, "size": len(document.body)}
    return Outcome(value, {"too_large": limit(maximum=maximum, current=current)} if current > maximum else {})


@category.check("http_requests", LOW)
def http_requests(context: Context) -> Outcome:
    """At most `max_requests` (50) sub-resources; over HTTP/2 requests are cheap, hence low importance."""
    page = context.page
    value = {
        "stylesheets": capped(page.stylesheets),
        "scripts": capped(script.src for script in page.scripts),
        "images": capped(dict.fromkeys(image.src for image in page.images if image.src)),
        "media": capped(page.media),
        "iframes": capped(page.iframes),
        "bytes": sum(probe.size or 0 for probe in context.resources.assets.values()),
        # Fetched resources that failed: broken references cost a request and show nothing.
        "failed": capped(
            {"url": url, "error": probe.error or f"HTTP {probe.status}"}
            for url, probe in context.resources.assets.items()
            if probe.error or (probe.status or 0) >= 400
        ),
    }
    current, maximum = len(page.resource_urls), context.thresholds["max_requests"]
    return Outcome(value, {"too_many": limit(maximum=maximum, current=current)} if current > maximum else {})


def _is_modern_image(context: Context, src: str, source_types: tuple[str, ...]) -> bool:
    if src.startswith("data:") or MODERN_IMAGE_TYPES.intersection(source_types):
        return True
    probe = context.resources.assets.get(src)
    if probe is not None and probe.ok and probe.fetched is not None and probe.fetched.content_type.startswith("image/"):
        return probe.fetched.content_type in MODERN_IMAGE_TYPES
    path = urlsplit(src).path.lower()
    return any(path.endswith(extension) for extension in MODERN_IMAGE_EXTENSIONS)


@category.check("image_format", LOW)
def image_format(context: Context) -> Outcome:
    """JPEG, PNG and GIF images of at least `min_modern_format_bytes` (24 KiB) are also offered as
    AVIF or WebP: from that size WebP saves about 8 KiB, Lighthouse `modern-image-formats`' floor.
    Spacer GIFs and small logos are not worth converting; images of unknown size are not judged."""
    minimum = context.thresholds["min_modern_format_bytes"]
    images = {image.src: image.source_types for image in context.page.images if image.src}
    old = []
    for src, types in images.items():
        probe = context.resources.assets.get(src)
        size = probe.size if probe is not None else None
        if size is not None and size >= minimum and not _is_modern_image(context, src, types):
            old.append({"url": src, "bytes": size})
    value = {"images": len(images), "not_modern": len(old)}
    return Outcome(value, {"bad_format": capped(old)} if old else {})


@category.check("image_dimensions", LOW)
def image_dimensions(context: Context) -> Outcome:
    """Images declare width and height, so the browser reserves their space and the text does not jump
    when they arrive (Lighthouse `unsized-images`; web.dev "Optimize CLS")."""
    unsized = [
        image.src or "(no src)"
        for image in context.page.images
        if not (image.width and image.height) and not image.src.startswith("data:")
    ]
    value = {"images": len(context.page.images), "unsized": len(unsized)}
    return Outcome(value, {"missing": capped(dict.fromkeys(unsized))} if unsized else {})


@category.check("defer_javascript", LOW)
def defer_javascript(context: Context) -> Outcome:
    """Scripts in <head> are async, deferred or modules (Lighthouse `render-blocking-resources`). A plain
    script at the end of <body> blocks nothing that the visitor would see."""
    blocking = [s.src for s in context.page.scripts if s.in_head and not (s.is_async or s.is_deferred or s.is_module)]
    return Outcome(len(context.page.scripts), {"render_blocking": capped(blocking)} if blocking else {})


def minify_saving(body: bytes) -> int:
    """Bytes on the wire (gzipped) that removing comments and extra whitespace would save."""
    stripped = WHITESPACE_RE.sub(b" ", COMMENT_RE.sub(b"", body))
    return max(0, gzipped_size(body) - gzipped_size(stripped))


@category.check("minification", LOW)
def minification(context: Context) -> Outcome:
    """Stylesheets and scripts are minified when that would save at least `min_minify_saving_bytes`
    (2 KiB) after gzip: Lighthouse `unminified-css`/`unminified-javascript`'s floor."""
    page, assets = context.page, context.resources.assets
    minimum = context.thresholds["min_minify_saving_bytes"]
    checked, unminified = 0, []
    for url in dict.fromkeys([*page.stylesheets, *(script.src for script in page.scripts)]):
        probe = assets.get(url)
        if ".min." in urlsplit(url).path:
            checked += 1
        elif probe is not None and probe.ok and probe.fetched is not None and probe.fetched.body:
            checked += 1
            saving = minify_saving(probe.fetched.body)
            if saving >= minimum:
                unminified.append({"url": url, "saving": saving})
    return Outcome({"checked": checked}, {"unminified": capped(unminified)} if unminified else {})


@category.check("dom_size", LOW)
def dom_size(context: Context) -> Outcome:
    """At most `max_dom_nodes` (1500) elements (Lighthouse `dom-size` warns from 1400)."""
    current, maximum = context.page.dom_nodes, context.thresholds["max_dom_nodes"]
    return Outcome(current, {"too_many": limit(maximum=maximum, current=current)} if current > maximum else {})


@category.check("doctype", MEDIUM)
def doctype(context: Context) -> Outcome:
    """A doctype that keeps browsers out of quirks mode, where CSS boxes, tables and line heights work as
    in 1990s browsers (HTML standard 13.2.6.4.1; Lighthouse `doctype`). HTML 4.0 Transitional, or
    HTML 4.01 Transitional without its DTD URL, select quirks mode. Judged on the document as served."""
    found = context.source_page.doctype
    if found is None:
        return Outcome(None, {"missing": None})
    value = {"doctype": str(found), "mode": found.mode}
    return Outcome(value, {"quirks_mode": str(found)} if found.mode == "quirks" else {})


@category.check("legacy_doctype", LOW)
def legacy_doctype(context: Context) -> Outcome:
    """The doctype is `<!DOCTYPE html>`. Older ones in standards mode are harmless; XHTML 1.0 and
    HTML 4.01 Transitional with a DTD URL select limited-quirks mode, which sizes images in table
    cells differently (HTML standard 13.2.6.4.1). A missing or quirks doctype is `doctype`'s failure."""
    found = context.source_page.doctype
    if found is None or found.mode == "quirks":
        return Outcome(None)
    value = {"doctype": str(found), "mode": found.mode}
    if found.mode == "limited-quirks":
        return Outcome(value, {"limited_quirks_mode": str(found)})
    legacy = found.public_id or (found.system_id and found.system_id.lower() != "about:legacy-compat")
    return Outcome(value, {"legacy": str(found)} if legacy else {})


@category.check("http2", LOW)
def http2(context: Context) -> Outcome:
    """The server speaks HTTP/2 or HTTP/3 (Lighthouse `modern-http-insight`, informational there)."""
    document, resources = context.document, context.resources
    alt_svc = document.headers.get("alt-svc", "").lower()
    if "h3" in {item.split("=", 1)[0].strip() for item in alt_svc.split(",")}:
        return Outcome("HTTP/3")
    if resources.alpn == "h2" or document.http_version == "HTTP/2":
        return Outcome("HTTP/2")
    if not document.url.startswith("https://"):
        # Browsers speak HTTP/2 only over TLS, so a plain-HTTP page cannot use it.
        return Outcome(document.http_version, {"not_https": None})
    if resources.alpn_error:
        return Outcome(document.http_version, {"failed": resources.alpn_error})
    return Outcome(resources.alpn or document.http_version, {"not_supported": None})


def _lab_metric(context: Context, metric: str) -> Outcome:
    """The lab metric measured while rendering (reports/analysis/lab.py); it fails when Lighthouse would
    rate it poor (above its second threshold), and passes, rating shown, when good or needing improvement."""
    measured = ((context.rendered or {}).get("lab_metrics") or {}).get(metric) or {}
    if measured.get("value") is None:
        return Outcome(None)  # nothing painted or measured: no verdict to give
    value = {key: measured[key] for key in ("value", "unit", "rating", "score")}
    if measured["rating"] != "poor":
        return Outcome(value)
    _, poor = lab.THRESHOLDS[metric]
    error = "too_much" if metric == "cls" else "too_slow"
    return Outcome(value, {error: limit(maximum=poor, current=measured["value"])})


@category.check("largest_contentful_paint", MEDIUM, rendered_only=True)
def largest_contentful_paint(context: Context) -> Outcome:
    """Largest Contentful Paint (Lighthouse `largest-contentful-paint`, web.dev's Core Web Vitals): the
    largest text or image is painted within 4 s on Lighthouse's throttled phone (good up to 2.5 s)."""
    return _lab_metric(context, "lcp")


@category.check("total_blocking_time", MEDIUM, rendered_only=True)
def total_blocking_time(context: Context) -> Outcome:
    """Total Blocking Time (Lighthouse `total-blocking-time`): after the first paint, the main thread's
    tasks block input for at most 600 ms in all, counting what each task runs over 50 ms, on a CPU four
    times slower than this machine's (good up to 200 ms)."""
    return _lab_metric(context, "tbt")


@category.check("cumulative_layout_shift", MEDIUM, rendered_only=True)
def cumulative_layout_shift(context: Context) -> Outcome:
    """Cumulative Layout Shift (Lighthouse `cumulative-layout-shift`, a Core Web Vital): the content moves
    by at most 0.25 in its worst burst of shifts (good up to 0.1), so that nobody clicks the wrong thing."""
    return _lab_metric(context, "cls")


@category.check("first_contentful_paint", LOW, rendered_only=True)
def first_contentful_paint(context: Context) -> Outcome:
    """First Contentful Paint (Lighthouse `first-contentful-paint`): something is painted within 3 s on
    Lighthouse's throttled phone (good up to 1.8 s). Low: LCP says the more useful thing."""
    return _lab_metric(context, "fcp")
