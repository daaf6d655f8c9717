"""Performance checks: how much the page weighs and how fast it arrives."""

from urllib.parse import urlsplit

from reports.analysis.checks.base import HIGH, LOW, MEDIUM, Category, Outcome, capped, limit
from reports.analysis.context import Context

category = Category("performance")

COMPRESSIONS = {"gzip", "br", "deflate", "zstd", "compress"}
MODERN_IMAGE_TYPES = {"image/avif", "image/webp", "image/svg+xml"}
MODERN_IMAGE_EXTENSIONS = {".avif", ".webp", ".svg"}
# Below this size, minifying a file saves less than the bytes of one TCP packet.
MINIFY_MIN_BYTES = 1024
# Minified CSS/JS has few line breaks: on average far longer lines than hand-written code.
MINIFIED_MIN_LINE_LENGTH = 200


@category.check("text_compression", HIGH)
def text_compression(context: Context) -> Outcome:
    document = context.document
    encoding = document.headers.get("content-encoding", "").strip().lower() or None
    value = {"encoding": encoding, "transferred": document.transferred_bytes, "size": len(document.body)}
    return Outcome(value, {} if encoding in COMPRESSIONS else {"missing": None})


@category.check("load_time", MEDIUM)
def load_time(context: Context) -> Outcome:
    current, maximum = context.document.total_ms, context.thresholds["load_time_ms"]
    return Outcome(current, {"too_slow": limit(maximum=maximum, current=current)} if current > maximum else {})


@category.check("page_size", MEDIUM)
def page_size(context: Context) -> Outcome:
    current, maximum = len(context.document.body), context.thresholds["max_page_bytes"]
    return Outcome(current, {"too_large": limit(maximum=maximum, current=current)} if current > maximum else {})


@category.check("http_requests", MEDIUM)
def http_requests(context: Context) -> Outcome:
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


@category.check("image_format", MEDIUM)
def image_format(context: Context) -> Outcome:
    images = {image.src: image.source_types for image in context.page.images if image.src}
    old = [src for src, types in images.items() if not _is_modern_image(context, src, types)]
    value = {"images": len(images), "not_modern": len(old)}
    return Outcome(value, {"bad_format": capped(old)} if old else {})


@category.check("defer_javascript", LOW)
def defer_javascript(context: Context) -> Outcome:
    blocking = [s.src for s in context.page.scripts if not (s.is_async or s.is_deferred or s.is_module)]
    return Outcome(len(context.page.scripts), {"render_blocking": capped(blocking)} if blocking else {})


def _looks_minified(body: bytes) -> bool:
    lines = body.count(b"\n") + 1
    return len(body) / lines >= MINIFIED_MIN_LINE_LENGTH


@category.check("minification", LOW)
def minification(context: Context) -> Outcome:
    page, assets = context.page, context.resources.assets
    checked, unminified = 0, []
    for url in dict.fromkeys([*page.stylesheets, *(script.src for script in page.scripts)]):
        probe = assets.get(url)
        if ".min." in urlsplit(url).path:
            checked += 1
        elif probe is not None and probe.ok and probe.fetched is not None and probe.fetched.body:
            checked += 1
            body = probe.fetched.body
            if len(body) >= MINIFY_MIN_BYTES and not _looks_minified(body):
                unminified.append(url)
    return Outcome({"checked": checked}, {"unminified": capped(unminified)} if unminified else {})


@category.check("dom_size", LOW)
def dom_size(context: Context) -> Outcome:
    current, maximum = context.page.dom_nodes, context.thresholds["max_dom_nodes"]
    return Outcome(current, {"too_many": limit(maximum=maximum, current=current)} if current > maximum else {})


@category.check("doctype", MEDIUM)
def doctype(context: Context) -> Outcome:
    present = context.page.has_doctype
    return Outcome(present, {} if present else {"missing": None})


@category.check("http2", MEDIUM)
def http2(context: Context) -> Outcome:
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
