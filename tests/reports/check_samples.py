"""One stored result per check of the engine, failed and passed, in the shapes the checks store.

For the tests of what the report page says about each check (tests/reports/pages/
test_report_page_languages.py): the failed ones carry every error kind a check stores, the passed
ones their usual value. The page's own words (titles, URLs, keywords) are in PAGE_WORDS.
"""

PAGE_WORDS = ["Zorblax", "Quindle", "zorblax", "quindle", "Wuzzle", "wuzzle", "Flumph"]
SITE = "https://zorblax.example"


def _failed(value, errors):
    return {"passed": False, "value": value, "errors": errors}


def _passed(value):
    return {"passed": True, "value": value, "errors": {}}


def _limit(current, minimum=None, maximum=None):
    return {
        key: value for key, value in (("min", minimum), ("max", maximum), ("current", current)) if value is not None
    }


def _metric(value, unit, rating, score):
    return {"value": value, "unit": unit, "rating": rating, "score": score}


FAILED = {
    "seo": {
        "title": _failed("Zorblax", {"missing": None, "too_many": ["Zorblax", "Quindle"]}),
        "title_optimal_length": _failed(7, {"not_optimal": _limit(7, 10, 70)}),
        "meta_description": _failed(None, {"missing": None}),
        "meta_description_optimal_length": _failed(12, {"not_optimal": _limit(12, 50, 320)}),
        "headings": _failed({"h2": ["Quindle"]}, {"missing": None}),
        "content_keywords": _failed(["zorblax", "quindle"], {"missing": ["zorblax", "quindle"]}),
        "keyword_consistency": _failed(
            [{"keyword": "wuzzle", "count": 12}, {"keyword": "flumph", "count": 3}], {"missing": ["wuzzle", "flumph"]}
        ),
        "image_keywords": _failed({"images": 3, "without_alt": 2}, {"missing": [f"{SITE}/a.png", f"{SITE}/b.png"]}),
        "seo_friendly_url": _failed(
            f"{SITE}/A_B?a=1",
            {
                "bad_format": {
                    "bad_characters": ["_"],
                    "too_many_params": _limit(8, maximum=5),
                    "too_long": _limit(140, maximum=115),
                }
            },
        ),
        "canonical_tag": _failed(f"{SITE}/", {"points_to_root": f"{SITE}/"}),
        "hreflang": _failed([{"hreflang": "xx_YY", "href": ""}], {"bad_format": [{"hreflang": "xx_YY", "href": ""}]}),
        "404_page": _failed({"url": f"{SITE}/zz-404", "status": 200}, {"wrong_status": 200}),
        "robots": _failed({"url": f"{SITE}/robots.txt", "status": 200}, {"disallowed": "Disallow: /"}),
        "noindex": _failed("noindex", {"noindex": "noindex"}),
        "noindex_header": _failed(["noindex"], {"noindex": "noindex"}),
        "in_page_links": _failed(
            {"total": 3100, "internal": 3000, "external": 100, "internals": [f"{SITE}/a"], "externals": []},
            {"too_many": _limit(3100, maximum=3000)},
        ),
        "nofollow_links": _failed([f"{SITE}/a"], {"internal_nofollow": [f"{SITE}/a"]}),
        "link_text": _failed(4, {"generic": [{"url": f"{SITE}/a", "text": "click here"}]}),
        "crawlable_links": _failed(
            {"links": 4, "uncrawlable": 2}, {"uncrawlable": ["javascript:void(0)", "(empty href)"]}
        ),
        "link_url_readability": _failed(3, {"unfriendly_urls": [f"{SITE}/A_B"]}),
        "language": _failed("english!", {"bad_format": "english!"}),
        "favicon": _failed(None, {"missing": None}),
    },
    "performance": {
        "text_compression": _failed(
            {"encoding": None, "transferred": 81000, "size": 81000, "gzip_saving": 60000},
            {"missing": _limit(60000, minimum=1400)},
        ),
        "load_time": _failed(5234, {"too_slow": _limit(5234, maximum=2000)}),
        "page_size": _failed({"transferred": 480123, "size": 480123}, {"too_large": _limit(480123, maximum=330000)}),
        "http_requests": _failed(
            {
                "stylesheets": [f"{SITE}/a.css"],
                "scripts": [f"{SITE}/a.js"],
                "images": [],
                "media": [],
                "iframes": ["(no src)"],
                "bytes": 4200,
                "failed": [
                    {"url": f"{SITE}/gone.js", "error": "HTTP 404"},
                    {"url": "https://down.example/x.js", "error": "Could not resolve host down.example."},
                ],
            },
            {"too_many": _limit(61, maximum=50)},
        ),
        "image_format": _failed(
            {"images": 2, "not_modern": 1}, {"bad_format": [{"url": f"{SITE}/big.jpg", "bytes": 250000}]}
        ),
        "image_dimensions": _failed({"images": 2, "unsized": 1}, {"missing": [f"{SITE}/a.png"]}),
        "defer_javascript": _failed(2, {"render_blocking": [f"{SITE}/a.js"]}),
        "minification": _failed({"checked": 2}, {"unminified": [{"url": f"{SITE}/a.js", "saving": 5000}]}),
        "dom_size": _failed(1614, {"too_many": _limit(1614, maximum=1500)}),
        "doctype": _failed(
            {"doctype": "<!DOCTYPE HTML PUBLIC>", "mode": "quirks"}, {"quirks_mode": "<!DOCTYPE HTML PUBLIC>"}
        ),
        "legacy_doctype": _failed(
            {"doctype": "<!DOCTYPE html PUBLIC>", "mode": "limited-quirks"},
            {"limited_quirks_mode": "<!DOCTYPE html PUBLIC>"},
        ),
        "http2": _failed(
            "HTTP/1.1", {"failed": "The TLS handshake with zorblax.example failed (certificate expired)."}
        ),
        "largest_contentful_paint": _failed(_metric(5200, "ms", "poor", 0.2), {"too_slow": _limit(5200, maximum=4000)}),
        "total_blocking_time": _failed(_metric(900, "ms", "poor", 0.1), {"too_slow": _limit(900, maximum=600)}),
        "cumulative_layout_shift": _failed(_metric(0.4, "", "poor", 0.1), {"too_much": _limit(0.4, maximum=0.25)}),
        "first_contentful_paint": _failed(_metric(3600, "ms", "poor", 0.3), {"too_slow": _limit(3600, maximum=3000)}),
    },
    "security": {
        "https_encryption": _failed("http://zorblax.example/", {"not_https": "http://zorblax.example/"}),
        "mixed_content": _failed(
            ["http://zorblax.example/a.js"], {"insecure_resources": ["http://zorblax.example/a.js"]}
        ),
        "mixed_passive_content": _failed(
            ["http://zorblax.example/a.png"], {"insecure_resources": ["http://zorblax.example/a.png"]}
        ),
        "server_signature": _failed(
            "nginx/1.25.3", {"revealed": {"server": "nginx/1.25.3", "x-powered-by": "PHP/8.2"}}
        ),
        "unsafe_cross_origin_links": _failed(1, {"missing_noopener": ["https://other.example/"]}),
        "hsts": _failed(None, {"missing": None}),
        "plaintext_email": _failed(["wuzzle@zorblax.example"], {"found": ["wuzzle@zorblax.example"]}),
        "content_security_policy": _failed(
            "script-src * 'unsafe-inline'",
            {"weak": ["'unsafe-inline' allows injected inline scripts", "* allows scripts from anywhere"]},
        ),
    },
    "accessibility": {
        "link_name": _failed({"links": 4, "unnamed": 1}, {"missing": [f"{SITE}/a"]}),
        "button_name": _failed({"buttons": 2, "unnamed": 1}, {"missing": ["menu-toggle"]}),
        "form_labels": _failed({"fields": 2, "unlabelled": 1}, {"missing": [{"field": "input[type=text]", "id": "q"}]}),
        "zoomable": _failed(
            "width=device-width, user-scalable=no", {"blocks_zoom": "width=device-width, user-scalable=no"}
        ),
        "heading_order": _failed(["h1", "h3"], {"skipped_levels": [{"from": "h1", "to": "h3", "heading": "Quindle"}]}),
        "color_contrast": _failed(
            {"text_elements": 20},
            {
                "failed": [
                    {
                        "text": "Quindle",
                        "ratio": 2.1,
                        "required": 4.5,
                        "color": "rgb(170, 170, 170)",
                        "background": "rgb(255, 255, 255)",
                    }
                ]
            },
        ),
        "tap_targets": _failed({"targets": 10, "failing": 1}, {"failed": [{"target": "a.menu", "size": "12x12"}]}),
        "font_size": _failed(
            {"characters": 1000, "legible_share": 40.0}, {"failed": [{"text": "Quindle", "size": "9px"}]}
        ),
        "image_aspect_ratio": _failed(
            {"images": 1}, {"failed": [{"url": f"{SITE}/a.png", "displayed": "100x100", "natural": "200x100"}]}
        ),
    },
    "miscellaneous": {
        "structured_data": _failed(
            {"open_graph": {"og:title": ""}, "twitter": {}, "json_ld": []},
            {"empty": ["og:title"], "bad_format": {"invalid_json_ld_blocks": 1}},
        ),
        "meta_viewport": _failed("width=980", {"bad_format": "width=980"}),
        "charset": _failed(
            {"declared": "latin-9x", "declared_in": "meta", "used": "utf-8"},
            {"unknown": "latin-9x", "invalid_bytes": {"encoding": "utf-8", "offset": 1234}},
        ),
        "sitemap": _failed(
            f"{SITE}/sitemap.xml", {"missing": "Could not connect to zorblax.example (Connection refused)."}
        ),
        "social": _failed({}, {"missing": None}),
        "content_length": _failed(40, {"too_few": _limit(40, minimum=250)}),
        "text_html_ratio": _failed(2.5, {"too_low": _limit(2.5, minimum=5)}),
        "inline_css": _failed({"count": 60, "tags": ["div", "span"]}, {"too_many": _limit(60, maximum=50)}),
        "deprecated_html_tags": _failed({"center": 2, "font": 1}, {"found": {"center": 2, "font": 1}}),
        "llms_txt": _failed(None, {"bad_format": "Zorblax"}),
        "flash_content": _failed(["(no URL)"], {"found": ["(no URL)"]}),
        "iframes": _failed([f"{SITE}/frame"], {"missing_title": [f"{SITE}/frame"]}),
    },
}

PASSED = {
    "seo": {
        "title": _passed("Zorblax"),
        "title_optimal_length": _passed(32),
        "meta_description": _passed("Quindle"),
        "meta_description_optimal_length": _passed(140),
        "headings": _passed({"h1": ["Zorblax"], "h2": ["Quindle"]}),
        "content_keywords": _passed(["zorblax"]),
        "keyword_consistency": _passed([{"keyword": "zorblax", "count": 9}]),
        "image_keywords": _passed({"images": 3, "without_alt": 0}),
        "seo_friendly_url": _passed(f"{SITE}/quindle"),
        "canonical_tag": _passed(f"{SITE}/quindle"),
        "hreflang": _passed([{"hreflang": "en", "href": f"{SITE}/quindle"}]),
        "404_page": _passed({"url": f"{SITE}/zz-404", "status": 404}),
        "robots": _passed({"url": f"{SITE}/robots.txt", "status": 200}),
        "noindex": _passed(None),
        "noindex_header": _passed(None),
        "in_page_links": _passed(
            {"total": 2, "internal": 1, "external": 1, "internals": [f"{SITE}/a"], "externals": ["https://o.example/"]}
        ),
        "nofollow_links": _passed([]),
        "link_text": _passed(12),
        "crawlable_links": _passed({"links": 12, "uncrawlable": 0}),
        "link_url_readability": _passed(12),
        "language": _passed("en"),
        "favicon": _passed(f"{SITE}/favicon.ico"),
    },
    "performance": {
        "text_compression": _passed({"encoding": "br", "transferred": 9000, "size": 42000}),
        "load_time": _passed(420),
        "page_size": _passed({"transferred": 9000, "size": 42000}),
        "http_requests": _passed(
            {"stylesheets": [], "scripts": [], "images": [], "media": [], "iframes": [], "bytes": 0, "failed": []}
        ),
        "image_format": _passed({"images": 2, "not_modern": 0}),
        "image_dimensions": _passed({"images": 2, "unsized": 0}),
        "defer_javascript": _passed(1),
        "minification": _passed({"checked": 1}),
        "dom_size": _passed(312),
        "doctype": _passed({"doctype": "<!DOCTYPE html>", "mode": "no-quirks"}),
        "legacy_doctype": _passed({"doctype": "<!DOCTYPE html>", "mode": "no-quirks"}),
        "http2": _passed("HTTP/2"),
        "largest_contentful_paint": _passed(_metric(1800, "ms", "good", 0.95)),
        "total_blocking_time": _passed(_metric(350, "ms", "needs-improvement", 0.7)),
        "cumulative_layout_shift": _passed(_metric(0.02, "", "good", 1.0)),
        "first_contentful_paint": _passed(_metric(1200, "ms", "good", 0.9)),
    },
    "security": {
        "https_encryption": _passed(f"{SITE}/"),
        "mixed_content": _passed([]),
        "mixed_passive_content": _passed([]),
        "server_signature": _passed("nginx"),
        "unsafe_cross_origin_links": _passed(0),
        "hsts": _passed("max-age=31536000"),
        "plaintext_email": _passed([]),
        "content_security_policy": _passed("default-src 'self'"),
    },
    "accessibility": {
        "link_name": _passed({"links": 4, "unnamed": 0}),
        "button_name": _passed({"buttons": 2, "unnamed": 0}),
        "form_labels": _passed({"fields": 2, "unlabelled": 0}),
        "zoomable": _passed("width=device-width, initial-scale=1"),
        "heading_order": _passed(["h1", "h2"]),
        "color_contrast": _passed({"text_elements": 20}),
        "tap_targets": _passed({"targets": 10, "failing": 0}),
        "font_size": _passed({"characters": 1000, "legible_share": 100}),
        "image_aspect_ratio": _passed({"images": 1}),
    },
    "miscellaneous": {
        "structured_data": _passed(
            {"open_graph": {"og:title": "Zorblax"}, "twitter": {"twitter:card": "summary"}, "json_ld": ["WebPage"]}
        ),
        "meta_viewport": _passed("width=device-width, initial-scale=1"),
        "charset": _passed({"declared": "utf-8", "declared_in": "header", "used": "utf-8"}),
        "sitemap": _passed(f"{SITE}/sitemap.xml"),
        "social": _passed({"GitHub": "https://github.com/zorblax"}),
        "content_length": _passed(900),
        "text_html_ratio": _passed(18.4),
        "inline_css": _passed({"count": 2, "tags": ["div"]}),
        "deprecated_html_tags": _passed({}),
        "llms_txt": _passed(None),
        "flash_content": _passed([]),
        "iframes": _passed([]),
    },
}


def mixed(failed_first: bool = True) -> dict:
    """Every check, alternately failed and passed within each category (starting as asked), with importances."""
    from reports.analysis.checks import CATEGORIES

    importance = {check.key: check.importance for category in CATEGORIES for check in category.checks}
    results = {}
    for category, checks in FAILED.items():
        results[category] = {}
        for position, key in enumerate(checks):
            fails = (position % 2 == 0) == failed_first
            results[category][key] = {**(FAILED if fails else PASSED)[category][key], "importance": importance[key]}
    return results
