from reports.analysis.checks import performance
from reports.analysis.context import Resources

from .helpers import make_context, page, probe

MINIFIED_CSS = b"body{margin:0;color:#222}" * 100
HAND_WRITTEN_CSS = b"body {\n    margin: 0;\n}\n" * 100


def test_text_compression_passes_for_a_gzipped_page():
    outcome = performance.text_compression(make_context(headers={"content-encoding": "gzip"}))

    assert outcome.passed
    assert outcome.value["encoding"] == "gzip"


def test_text_compression_fails_for_an_uncompressed_page():
    assert performance.text_compression(make_context()).errors == {"missing": None}


def test_load_time_passes_under_two_seconds():
    assert performance.load_time(make_context(total_ms=1999)).passed


def test_load_time_fails_over_two_seconds():
    outcome = performance.load_time(make_context(total_ms=2500))

    assert outcome.errors == {"too_slow": {"max": 2000, "current": 2500}}


def test_page_size_passes_under_330_kb():
    assert performance.page_size(make_context(body=b"x" * 330_000)).passed


def test_page_size_fails_over_330_kb():
    outcome = performance.page_size(make_context(body=b"x" * 330_001))

    assert outcome.errors == {"too_large": {"max": 330_000, "current": 330_001}}


def test_http_requests_pass_under_fifty_resources():
    body = '<img src="/a.webp" alt=""><script src="/app.js"></script>'

    outcome = performance.http_requests(make_context(page('<link rel="stylesheet" href="/s.css">', body)))

    assert outcome.passed
    assert outcome.value["stylesheets"] == ["https://shop.example/s.css"]
    assert outcome.value["scripts"] == ["https://shop.example/app.js"]


def test_http_requests_fail_over_fifty_resources():
    body = "".join(f'<img src="/{n}.webp" alt="">' for n in range(51))

    outcome = performance.http_requests(make_context(page("", body)))

    assert outcome.errors == {"too_many": {"max": 50, "current": 51}}


def test_image_format_passes_for_webp_avif_and_svg():
    body = '<img src="/a.webp" alt=""><img src="/b.avif" alt=""><img src="/c.svg" alt="">'

    assert performance.image_format(make_context(page("", body))).passed


def test_image_format_passes_for_a_jpeg_offered_as_avif_in_a_picture():
    body = '<picture><source srcset="/a.avif" type="image/avif"><img src="/a.jpg" alt=""></picture>'

    assert performance.image_format(make_context(page("", body))).passed


def test_image_format_trusts_the_content_type_over_the_extension():
    resources = Resources(
        assets={"https://shop.example/photo": probe("https://shop.example/photo", 200, b"", "image/webp")}
    )

    assert performance.image_format(make_context(page("", '<img src="/photo" alt="">'), resources=resources)).passed


def test_image_format_fails_listing_jpeg_and_png_images():
    body = '<img src="/a.jpg" alt=""><img src="/b.png" alt="">'

    outcome = performance.image_format(make_context(page("", body)))

    assert outcome.errors == {"bad_format": ["https://shop.example/a.jpg", "https://shop.example/b.png"]}


def test_defer_javascript_passes_for_deferred_async_and_module_scripts():
    head = '<script src="/a.js" defer></script><script src="/b.js" async></script><script src="/c.js" type="module">'

    assert performance.defer_javascript(make_context(page(head + "</script>"))).passed


def test_defer_javascript_fails_listing_render_blocking_scripts():
    outcome = performance.defer_javascript(make_context(page('<script src="/a.js"></script>')))

    assert outcome.errors == {"render_blocking": ["https://shop.example/a.js"]}


def test_minification_passes_for_minified_files():
    url = "https://shop.example/s.css"
    resources = Resources(assets={url: probe(url, body=MINIFIED_CSS, content_type="text/css")})

    outcome = performance.minification(make_context(page('<link rel="stylesheet" href="/s.css">'), resources=resources))

    assert outcome.passed
    assert outcome.value == {"checked": 1}


def test_minification_fails_listing_hand_written_files():
    url = "https://shop.example/s.css"
    resources = Resources(assets={url: probe(url, body=HAND_WRITTEN_CSS, content_type="text/css")})

    outcome = performance.minification(make_context(page('<link rel="stylesheet" href="/s.css">'), resources=resources))

    assert outcome.errors == {"unminified": [url]}


def test_dom_size_passes_under_1500_nodes():
    assert performance.dom_size(make_context(page("", "<p>x</p>" * 100))).passed


def test_dom_size_fails_over_1500_nodes():
    outcome = performance.dom_size(make_context(page("", "<p>x</p>" * 1500)))

    assert outcome.errors == {"too_many": {"max": 1500, "current": 1503}}  # with html, head and body


def test_doctype_passes_when_declared():
    assert performance.doctype(make_context(page())).passed


def test_doctype_fails_when_missing():
    assert performance.doctype(make_context("<html><body>x</body></html>")).errors == {"missing": None}


def test_http2_passes_when_the_server_negotiates_h2():
    outcome = performance.http2(make_context(resources=Resources(alpn="h2")))

    assert outcome.passed
    assert outcome.value == "HTTP/2"


def test_http2_passes_when_http3_is_advertised():
    outcome = performance.http2(make_context(headers={"alt-svc": 'h3=":443"; ma=86400'}))

    assert outcome.value == "HTTP/3"


def test_http2_fails_when_the_server_only_speaks_http1():
    outcome = performance.http2(make_context(resources=Resources(alpn="http/1.1")))

    assert outcome.errors == {"not_supported": None}


def test_http2_fails_for_a_plain_http_page():
    outcome = performance.http2(make_context(url="http://shop.example/"))

    assert outcome.errors == {"not_https": None}


def test_http2_fails_naming_the_error_when_the_probe_failed():
    outcome = performance.http2(make_context(resources=Resources(alpn_error="Could not open a TLS connection")))

    assert outcome.errors == {"failed": "Could not open a TLS connection"}
