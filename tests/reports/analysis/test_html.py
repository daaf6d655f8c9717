import codecs

from reports.analysis.html import decode, parse


def test_decode_prefers_the_header_charset_over_the_meta_tag():
    body = '<meta charset="iso-8859-1"><p>café</p>'.encode()

    decoded = decode(body, "utf-8")

    assert "café" in decoded.text
    assert (decoded.declared, decoded.declared_in) == ("utf-8", "header")


def test_decode_uses_the_meta_charset_without_a_header_charset():
    body = '<meta charset="iso-8859-1"><p>café</p>'.encode("iso-8859-1")

    decoded = decode(body, None)

    assert "café" in decoded.text
    assert (decoded.encoding, decoded.declared_in) == ("iso8859-1", "meta")


def test_decode_honours_a_byte_order_mark():
    decoded = decode(codecs.BOM_UTF8 + "<p>café</p>".encode(), None)

    assert decoded.text == "<p>café</p>"
    assert decoded.declared_in == "bom"


def test_decode_falls_back_to_utf8_for_an_unknown_charset():
    decoded = decode("<p>café</p>".encode(), "x-made-up")

    assert decoded.text == "<p>café</p>"
    assert decoded.unknown_declared


def test_decode_replaces_invalid_bytes_and_records_where_they_are():
    decoded = decode(b"<p>caf\xe9</p>", "utf-8")

    assert decoded.text == "<p>caf\ufffd</p>"
    assert decoded.invalid_at == 6


def test_parse_resolves_relative_urls_against_the_base_tag():
    page = parse('<base href="https://cdn.example/v2/"><img src="a.webp" alt="">', "https://shop.example/x")

    assert page.images[0].src == "https://cdn.example/v2/a.webp"


def test_parse_keeps_only_visible_text():
    page = parse("<body><p>Spades</p><script>var hidden;</script><style>p{}</style></body>", "https://shop.example/")

    assert page.text == "Spades"
    assert page.words == ["spades"]


def test_parse_lists_each_resource_once_in_document_order():
    html = '<link rel="stylesheet" href="/s.css"><script src="/a.js"></script><img src="/a.webp"><img src="/a.webp">'

    page = parse(html, "https://shop.example/")

    assert page.resource_urls == [
        "https://shop.example/s.css",
        "https://shop.example/a.js",
        "https://shop.example/a.webp",
    ]


def test_parse_survives_a_malformed_link():
    page = parse('<a href="http://[::1">broken</a>', "https://shop.example/")

    assert page.links[0].url == "http://[::1"
    assert not page.links[0].internal


def test_parse_ignores_the_title_of_an_inline_svg():
    page = parse(
        "<head><title>Shop</title></head><body><svg><title>Cart icon</title></svg></body>", "https://a.example/"
    )

    assert page.titles == ["Shop"]


def test_parse_counts_an_iframe_without_src_but_does_not_request_it():
    page = parse('<iframe srcdoc="<p>hi</p>"></iframe>', "https://shop.example/")

    assert page.iframes == ["(no src)"]
    assert page.resource_urls == []
