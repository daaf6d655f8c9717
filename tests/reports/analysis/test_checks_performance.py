from reports.analysis.checks import performance
from reports.analysis.context import Resources

from .helpers import make_context, page, probe

MINIFIED_CSS = b"body{margin:0;color:#222}" * 100
# Comments and indentation that differ from rule to rule, as in a real hand-written stylesheet.
HAND_WRITTEN_CSS = "".join(
    f"/* Card variant {n}: spacing grows with the variant, colours step through the palette. */\n"
    f".card-{n} {{\n    margin: {n}px auto;\n    color: #{n * 7919 % 4096:03x};\n}}\n\n"
    for n in range(800)
).encode()


def test_text_compression_passes_for_a_gzipped_page():
    outcome = performance.text_compression(make_context(headers={"content-encoding": "gzip"}))

    assert outcome.passed
    assert outcome.value["encoding"] == "gzip"


def test_text_compression_passes_for_an_uncompressed_page_too_small_to_gain():
    outcome = performance.text_compression(make_context())

    assert outcome.passed
    assert outcome.value["gzip_saving"] < 1400


def test_text_compression_fails_when_gzip_would_save_1400_bytes():
    outcome = performance.text_compression(make_context(page("", "<p>Forged garden spades.</p>" * 100)))

    assert set(outcome.errors) == {"missing"}
    assert outcome.errors["missing"]["min"] == 1400
    assert outcome.errors["missing"]["current"] > 2000


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


def test_image_format_fails_listing_large_jpeg_and_png_images():
    body = '<img src="/a.jpg" alt=""><img src="/b.png" alt="">'
    assets = {
        f"https://shop.example/{name}": probe(f"https://shop.example/{name}", body=b"x" * 30_000, content_type=kind)
        for name, kind in (("a.jpg", "image/jpeg"), ("b.png", "image/png"))
    }

    outcome = performance.image_format(make_context(page("", body), resources=Resources(assets=assets)))

    assert outcome.errors == {
        "bad_format": [
            {"url": "https://shop.example/a.jpg", "bytes": 30_000},
            {"url": "https://shop.example/b.png", "bytes": 30_000},
        ]
    }


def test_image_format_ignores_small_and_unknown_size_images():
    body = '<img src="/spacer.gif" alt=""><img src="/logo.png" alt=""><img src="/gone.jpg" alt="">'
    assets = {
        "https://shop.example/spacer.gif": probe("https://shop.example/spacer.gif", body=b"G" * 43),
        "https://shop.example/logo.png": probe("https://shop.example/logo.png", body=b"P" * 20_000),
    }

    outcome = performance.image_format(make_context(page("", body), resources=Resources(assets=assets)))

    assert outcome.passed
    assert outcome.value == {"images": 3, "not_modern": 0}


def test_image_dimensions_pass_when_width_and_height_are_given():
    outcome = performance.image_dimensions(make_context(page("", '<img src="/a.png" width="10" height="5" alt="">')))

    assert outcome.passed


def test_image_dimensions_fail_listing_unsized_images():
    body = '<img src="/a.png" width="10" alt=""><img src="data:image/gif;base64,R0lG" alt="">'

    outcome = performance.image_dimensions(make_context(page("", body)))

    assert outcome.errors == {"missing": ["https://shop.example/a.png"]}


def test_defer_javascript_passes_for_deferred_async_and_module_scripts():
    head = '<script src="/a.js" defer></script><script src="/b.js" async></script><script src="/c.js" type="module">'

    assert performance.defer_javascript(make_context(page(head + "</script>"))).passed


def test_defer_javascript_fails_listing_render_blocking_scripts():
    outcome = performance.defer_javascript(make_context(page('<script src="/a.js"></script>')))

    assert outcome.errors == {"render_blocking": ["https://shop.example/a.js"]}


def test_defer_javascript_passes_for_a_plain_script_at_the_end_of_the_body():
    outcome = performance.defer_javascript(make_context(page("", '<p>Text</p><script src="/a.js"></script>')))

    assert outcome.passed
    assert outcome.value == 1


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

    assert set(outcome.errors) == {"unminified"}
    assert outcome.errors["unminified"][0]["url"] == url
    assert outcome.errors["unminified"][0]["saving"] >= 2048


def test_minification_passes_for_a_small_hand_written_file():
    url = "https://shop.example/s.css"
    small = b"body {\n    margin: 0;\n    color: #222;\n}\n\nh1 {\n    font-size: 2rem;\n}\n" * 20
    resources = Resources(assets={url: probe(url, body=small, content_type="text/css")})

    outcome = performance.minification(make_context(page('<link rel="stylesheet" href="/s.css">'), resources=resources))

    assert outcome.passed


def test_dom_size_passes_under_1500_nodes():
    assert performance.dom_size(make_context(page("", "<p>x</p>" * 100))).passed


def test_dom_size_fails_over_1500_nodes():
    outcome = performance.dom_size(make_context(page("", "<p>x</p>" * 1500)))

    assert outcome.errors == {"too_many": {"max": 1500, "current": 1503}}  # with html, head and body


def test_doctype_passes_when_declared():
    assert performance.doctype(make_context(page())).passed


def test_doctype_fails_when_missing():
    assert performance.doctype(make_context("<html><body>x</body></html>")).errors == {"missing": None}


HTML40_TRANSITIONAL = (
    '<!doctype html public "-//W3C//DTD HTML 4.0 Transitional//EN"\n "http://www.w3.org/TR/REC-html40/loose.dtd">'
)
XHTML_TRANSITIONAL = (
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
    '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">'
)
HTML401_STRICT = '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01//EN" "http://www.w3.org/TR/html4/strict.dtd">'


def test_doctype_fails_for_a_doctype_that_selects_quirks_mode():
    outcome = performance.doctype(make_context(HTML40_TRANSITIONAL + "<html><body>x</body></html>"))

    assert set(outcome.errors) == {"quirks_mode"}
    assert outcome.value["mode"] == "quirks"


def test_doctype_fails_for_html401_transitional_without_a_system_identifier():
    html = '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN"><html><body>x</body></html>'

    assert set(performance.doctype(make_context(html)).errors) == {"quirks_mode"}


def test_doctype_passes_for_xhtml_transitional_which_is_legacy_doctype_s_concern():
    context = make_context(XHTML_TRANSITIONAL + "<html><body>x</body></html>")

    assert performance.doctype(context).passed
    assert set(performance.legacy_doctype(context).errors) == {"limited_quirks_mode"}


def test_legacy_doctype_fails_for_a_legacy_doctype_in_standards_mode():
    outcome = performance.legacy_doctype(make_context(HTML401_STRICT + "<html><body>x</body></html>"))

    assert set(outcome.errors) == {"legacy"}
    assert outcome.value["mode"] == "no-quirks"


def test_legacy_doctype_passes_for_html5_and_the_legacy_compat_doctype():
    html = '<!DOCTYPE html SYSTEM "about:legacy-compat"><html><body>x</body></html>'

    assert performance.legacy_doctype(make_context(html)).passed
    assert performance.legacy_doctype(make_context(page())).passed


def test_legacy_doctype_leaves_quirks_mode_to_doctype():
    outcome = performance.legacy_doctype(make_context(HTML40_TRANSITIONAL + "<html><body>x</body></html>"))

    assert outcome.passed


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


def test_doctype_after_an_xml_declaration_and_a_comment_is_found():
    html = '<?xml version="1.0" encoding="utf-8"?>\n<!-- built -->\n<!DOCTYPE html><html><body>x</body></html>'

    outcome = performance.doctype(make_context(html))

    assert outcome.passed
    assert outcome.value == {"doctype": "<!DOCTYPE html>", "mode": "no-quirks"}
