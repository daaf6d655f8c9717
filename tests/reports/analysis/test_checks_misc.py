from reports.analysis.checks import misc
from reports.analysis.context import Resources

from .helpers import failed_probe, make_context, page, probe

WORDS = " ".join(["spade"] * 500)


def test_structured_data_passes_with_open_graph_twitter_and_json_ld():
    head = (
        '<meta property="og:title" content="Spades"><meta name="twitter:card" content="summary">'
        '<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product"}</script>'
    )

    outcome = misc.structured_data(make_context(page(head)))

    assert outcome.passed
    assert outcome.value == {
        "open_graph": {"og:title": "Spades"},
        "twitter": {"twitter:card": "summary"},
        "json_ld": ["Product"],
    }


def test_structured_data_passes_without_any_since_it_is_optional():
    outcome = misc.structured_data(make_context(page()))

    assert outcome.passed
    assert outcome.value == {"open_graph": {}, "twitter": {}, "json_ld": []}


def test_structured_data_fails_for_empty_open_graph_tags():
    head = '<meta property="og:title" content=""><meta property="og:type" content="website">'

    assert misc.structured_data(make_context(page(head))).errors == {"empty": ["og:title"]}


def test_structured_data_fails_with_invalid_json_ld():
    head = '<meta property="og:title" content="Spades"><script type="application/ld+json">{"@type": </script>'

    outcome = misc.structured_data(make_context(page(head)))

    assert outcome.errors == {"bad_format": {"invalid_json_ld_blocks": 1}}


def test_meta_viewport_passes_with_device_width():
    head = '<meta name="viewport" content="width=device-width, initial-scale=1">'

    assert misc.meta_viewport(make_context(page(head))).passed


def test_meta_viewport_fails_when_missing():
    assert misc.meta_viewport(make_context(page())).errors == {"missing": None}


def test_meta_viewport_fails_with_a_fixed_width():
    head = '<meta name="viewport" content="width=1024">'

    assert misc.meta_viewport(make_context(page(head))).errors == {"bad_format": "width=1024"}


def test_charset_passes_when_declared_in_the_header_and_valid():
    outcome = misc.charset(make_context(page()))

    assert outcome.passed
    assert outcome.value == {"declared": "utf-8", "declared_in": "header", "used": "utf-8"}


def test_charset_fails_when_not_declared_anywhere():
    context = make_context(page(), headers={"content-type": "text/html"})

    assert misc.charset(context).errors == {"missing": None}


def test_charset_fails_for_an_unknown_charset():
    context = make_context(page(), headers={"content-type": "text/html; charset=x-made-up"})

    assert misc.charset(context).errors == {"unknown": "x-made-up"}


def test_charset_fails_for_bytes_invalid_in_the_declared_charset():
    context = make_context(body=b"<html><body>caf\xe9</body></html>")

    assert misc.charset(context).errors == {"invalid_bytes": {"encoding": "utf-8", "offset": 15}}


def test_sitemap_passes_when_found():
    resources = Resources(sitemap=probe("https://shop.example/sitemap.xml", content_type="application/xml"))

    assert misc.sitemap(make_context(resources=resources)).value == "https://shop.example/sitemap.xml"


def test_sitemap_fails_when_the_site_answers_with_an_html_page():
    resources = Resources(sitemap=probe("https://shop.example/sitemap.xml", content_type="text/html"))

    assert misc.sitemap(make_context(resources=resources)).errors == {"missing": None}


def test_sitemap_fails_naming_the_error_when_it_could_not_be_fetched():
    resources = Resources(sitemap=failed_probe("https://shop.example/sitemap.xml"))

    outcome = misc.sitemap(make_context(resources=resources))

    assert outcome.errors == {"missing": "The page did not answer within 10 seconds."}


def test_social_passes_with_links_to_social_profiles():
    body = '<a href="https://www.instagram.com/shop">Instagram</a><a href="https://github.com/shop">Code</a>'

    outcome = misc.social(make_context(page("", body)))

    assert outcome.value == {"Instagram": "https://www.instagram.com/shop", "GitHub": "https://github.com/shop"}


def test_social_fails_without_social_links():
    assert misc.social(make_context(page("", '<a href="https://notfacebook.com/">x</a>'))).errors == {"missing": None}


def test_content_length_passes_with_250_words():
    assert misc.content_length(make_context(page("", f"<p>{WORDS}</p>"))).passed


def test_content_length_fails_under_250_words():
    outcome = misc.content_length(make_context(page("", "<p>Too short.</p><script>var many = 'words';</script>")))

    assert outcome.errors == {"too_few": {"min": 250, "current": 2}}


def test_text_html_ratio_passes_for_a_text_heavy_page():
    assert misc.text_html_ratio(make_context(page("", f"<p>{WORDS}</p>"))).passed


def test_text_html_ratio_fails_for_a_markup_heavy_page():
    html = page("", "<div><span></span></div>" * 100 + "<p>Hi</p>")

    outcome = misc.text_html_ratio(make_context(html))

    assert outcome.errors == {"too_low": {"min": 5, "current": 0.1}}


def test_inline_css_passes_without_style_attributes():
    assert misc.inline_css(make_context(page("", "<p>x</p>"))).passed


def test_inline_css_passes_with_a_few_style_attributes():
    outcome = misc.inline_css(make_context(page("", '<p style="color: red">x</p><div style="margin: 0"></div>')))

    assert outcome.passed
    assert outcome.value == {"count": 2, "tags": ["p", "div"]}


def test_inline_css_fails_over_fifty_style_attributes():
    outcome = misc.inline_css(make_context(page("", '<p style="color: red">x</p>' * 51)))

    assert outcome.errors == {"too_many": {"max": 50, "current": 51}}


def test_deprecated_tags_pass_for_modern_html():
    assert misc.deprecated_html_tags(make_context(page("", "<main><p>x</p></main>"))).passed


def test_deprecated_tags_fail_counting_each_tag():
    outcome = misc.deprecated_html_tags(make_context(page("", "<center><font>a</font><font>b</font></center>")))

    assert outcome.errors == {"found": {"center": 1, "font": 2}}


def test_llms_txt_passes_when_found_with_a_title():
    llms = probe("https://shop.example/llms.txt", body=b"# Shop\n\n> Spades.\n", content_type="text/markdown")

    outcome = misc.llms_txt(make_context(resources=Resources(llms_txt=llms)))

    assert outcome.passed
    assert outcome.value == "https://shop.example/llms.txt"


def test_llms_txt_passes_when_missing_since_it_is_optional():
    resources = Resources(llms_txt=probe("https://shop.example/llms.txt", status=404, content_type="text/html"))

    outcome = misc.llms_txt(make_context(resources=resources))

    assert outcome.passed
    assert outcome.value is None


def test_llms_txt_fails_when_it_is_not_markdown_with_a_title():
    llms = probe("https://shop.example/llms.txt", body=b"User-agent: *\n", content_type="text/plain")

    outcome = misc.llms_txt(make_context(resources=Resources(llms_txt=llms)))

    assert outcome.errors == {"bad_format": "User-agent: *"}


def test_flash_passes_without_plugins():
    assert misc.flash_content(make_context(page("", '<video src="/a.mp4"></video>'))).passed


def test_flash_fails_listing_flash_objects():
    body = '<embed src="/intro.swf"><object data="/movie" type="application/x-shockwave-flash"></object>'

    outcome = misc.flash_content(make_context(page("", body)))

    assert outcome.errors == {"found": ["https://shop.example/intro.swf", "https://shop.example/movie"]}


def test_iframes_pass_without_iframes():
    assert misc.iframes(make_context(page("", "<p>x</p>"))).passed


def test_iframes_pass_when_each_has_a_title():
    body = '<iframe src="https://maps.example/embed" title="Map of the shop"></iframe>'

    outcome = misc.iframes(make_context(page("", body)))

    assert outcome.passed
    assert outcome.value == ["https://maps.example/embed"]


def test_iframes_fail_listing_iframes_without_a_title():
    body = '<iframe src="https://maps.example/embed"></iframe><iframe src="/ok" aria-label="Video"></iframe>'

    outcome = misc.iframes(make_context(page("", body)))

    assert outcome.errors == {"missing_title": ["https://maps.example/embed"]}


def test_structured_data_counts_a_100000_deep_json_ld_block_as_invalid():
    # The standard library's parser recursed into it: the whole analysis failed with an unexpected error.
    deep = "[" * 100_000 + "]" * 100_000
    head = f'<script type="application/ld+json">{deep}</script>'

    outcome = misc.structured_data(make_context(page(head)))

    assert outcome.errors == {"bad_format": {"invalid_json_ld_blocks": 1}}
