from reports.analysis.checks import seo
from reports.analysis.context import Resources

from .helpers import PAGE_URL, failed_probe, make_context, page, probe

GOOD_TITLE = "Forged Garden Spades and Rakes That Last a Lifetime"  # 51 characters


def test_title_passes_with_one_title_within_the_length_limits():
    outcome = seo.title(make_context(page(f"<title>{GOOD_TITLE}</title>")))

    assert outcome.passed
    assert outcome.value == GOOD_TITLE


def test_title_fails_when_missing():
    outcome = seo.title(make_context(page("<meta charset='utf-8'>")))

    assert outcome.errors == {"missing": None}


def test_title_fails_when_there_are_two():
    outcome = seo.title(make_context(page("<title>One</title><title>Two</title>")))

    assert outcome.errors == {"too_many": ["One", "Two"]}


def test_title_passes_when_long_since_length_is_a_separate_check():
    assert seo.title(make_context(page(f"<title>{'x' * 90}</title>"))).passed


def test_title_optimal_length_passes_between_10_and_70_characters():
    assert seo.title_optimal_length(make_context(page(f"<title>{GOOD_TITLE}</title>"))).passed
    assert seo.title_optimal_length(make_context(page(f"<title>{'x' * 70}</title>"))).passed


def test_title_optimal_length_fails_for_a_short_title():
    outcome = seo.title_optimal_length(make_context(page("<title>Spades</title>")))

    assert outcome.errors == {"not_optimal": {"min": 10, "max": 70, "current": 6}}


def test_title_optimal_length_limits_are_settings():
    context = make_context(page(f"<title>{GOOD_TITLE}</title>"), thresholds={"max_title_optimal": 40})

    assert seo.title_optimal_length(context).errors == {"not_optimal": {"min": 10, "max": 40, "current": 51}}


def test_meta_description_passes_when_present():
    outcome = seo.meta_description(make_context(page('<meta name="description" content="Forged spades.">')))

    assert outcome.passed
    assert outcome.value == "Forged spades."


def test_meta_description_fails_when_missing():
    assert seo.meta_description(make_context(page())).errors == {"missing": None}


def test_meta_description_fails_when_empty():
    assert seo.meta_description(make_context(page('<meta name="description" content=" ">'))).errors == {"missing": None}


def test_meta_description_fails_when_given_twice():
    head = '<meta name="description" content="a"><meta name="description" content="b">'

    assert seo.meta_description(make_context(page(head))).errors == {"too_many": ["a", "b"]}


def test_meta_description_optimal_length_passes_between_50_and_320_characters():
    for length in (50, 169, 320):
        head = f'<meta name="description" content="{"d" * length}">'

        assert seo.meta_description_optimal_length(make_context(page(head))).passed


def test_meta_description_optimal_length_fails_when_too_long():
    head = f'<meta name="description" content="{"d" * 321}">'

    outcome = seo.meta_description_optimal_length(make_context(page(head)))

    assert outcome.errors == {"not_optimal": {"min": 50, "max": 320, "current": 321}}


def test_meta_description_optimal_length_leaves_a_missing_description_to_meta_description():
    assert seo.meta_description_optimal_length(make_context(page())).passed


def test_meta_description_optimal_length_fails_when_too_short():
    head = '<meta name="description" content="the main OpenBSD page">'

    outcome = seo.meta_description_optimal_length(make_context(page(head)))

    assert outcome.errors == {"not_optimal": {"min": 50, "max": 320, "current": 21}}


def test_headings_pass_with_one_h1_unlike_the_title():
    outcome = seo.headings(make_context(page("<title>Shop</title>", "<h1>Spades</h1><h2>Steel</h2>")))

    assert outcome.passed
    assert outcome.value == {"h1": ["Spades"], "h2": ["Steel"]}


def test_headings_fail_without_an_h1():
    assert seo.headings(make_context(page("", "<h2>Only a subheading</h2>"))).errors == {"missing": None}


def test_headings_fail_with_an_empty_h1():
    assert seo.headings(make_context(page("", "<h1> </h1>"))).errors == {"missing": None}


def test_headings_pass_with_two_h1s():
    outcome = seo.headings(make_context(page("", "<h1>One</h1><h1>Two</h1>")))

    assert outcome.passed
    assert outcome.value == {"h1": ["One", "Two"]}


def test_headings_pass_when_the_h1_repeats_the_title():
    assert seo.headings(make_context(page("<title>Garden Spades</title>", "<h1>garden spades</h1>"))).passed


def test_content_keywords_pass_when_the_title_words_appear_in_the_text():
    html = page("<title>Forged garden spades</title>", "<p>Our garden spade is forged by hand.</p>")

    outcome = seo.content_keywords(make_context(html))

    assert outcome.passed
    assert outcome.value == ["forged", "garden", "spades"]


def test_content_keywords_fail_listing_title_words_absent_from_the_text():
    html = page("<title>Forged garden spades</title>", "<p>Our garden tools.</p>")

    assert seo.content_keywords(make_context(html)).errors == {"missing": ["forged", "spades"]}


def test_keyword_consistency_passes_when_frequent_words_are_in_title_and_headings():
    body = "<h1>Spades and rakes</h1>" + "<p>spade rake hoe fork trowel spade rake</p>" * 5
    html = page("<title>Hoes, forks and trowels</title>", body)

    assert seo.keyword_consistency(make_context(html)).passed


def test_keyword_consistency_fails_when_frequent_words_appear_nowhere_else():
    body = "<h1>Welcome</h1>" + "<p>spade rake hoe fork trowel spade rake</p>" * 5
    html = page("<title>Home page</title>", body)

    outcome = seo.keyword_consistency(make_context(html))

    assert outcome.errors == {"missing": ["spade", "rake", "hoe", "fork", "trowel"]}
    assert outcome.value[0] == {"keyword": "spade", "count": 10}


def test_image_alt_passes_when_every_image_has_alt_even_empty_for_decoration():
    body = '<img src="/a.webp" alt="A spade"><img src="/line.svg" alt="">'

    assert seo.image_alt(make_context(page("", body))).passed


def test_image_alt_fails_listing_images_without_alt():
    body = '<img src="/a.webp" alt="A spade"><img src="/b.jpg">'

    outcome = seo.image_alt(make_context(page("", body)))

    assert outcome.errors == {"missing": ["https://shop.example/b.jpg"]}
    assert outcome.value == {"images": 2, "without_alt": 1}


def test_seo_friendly_url_passes_for_a_short_lower_case_hyphenated_url():
    assert seo.seo_friendly_url(make_context(url="https://shop.example/garden-tools/spades")).passed


def test_seo_friendly_url_fails_for_underscores_and_many_parameters():
    context = make_context(url="https://shop.example/Garden_Tools?id=1&session=2&ref=3")

    outcome = seo.seo_friendly_url(context)

    assert outcome.errors == {"bad_format": {"bad_characters": ["_"], "too_many_params": {"max": 2, "current": 3}}}


def test_seo_friendly_url_passes_for_capitals():
    assert seo.seo_friendly_url(make_context(url="https://shop.example/Backbone-Docs")).passed


def test_seo_friendly_url_fails_for_a_very_long_url():
    url = "https://shop.example/" + "a" * 120

    assert "too_long" in seo.seo_friendly_url(make_context(url=url)).errors["bad_format"]


def test_canonical_passes_with_one_absolute_canonical():
    outcome = seo.canonical_tag(make_context(page(f'<link rel="canonical" href="{PAGE_URL}">')))

    assert outcome.passed
    assert outcome.value == PAGE_URL


def test_canonical_passes_when_missing_since_the_page_is_its_own_canonical():
    outcome = seo.canonical_tag(make_context(page()))

    assert outcome.passed
    assert outcome.value is None


def test_canonical_fails_when_relative():
    outcome = seo.canonical_tag(make_context(page('<link rel="canonical" href="/garden/spades">')))

    assert outcome.errors == {"bad_format": "/garden/spades"}


def test_canonical_passes_when_it_points_to_another_host():
    outcome = seo.canonical_tag(make_context(page('<link rel="canonical" href="https://original.example/">')))

    assert outcome.passed
    assert outcome.value == "https://original.example/"


def test_canonical_fails_when_a_deep_page_points_to_the_root():
    outcome = seo.canonical_tag(make_context(page('<link rel="canonical" href="https://shop.example/">')))

    assert outcome.errors == {"points_to_root": "https://shop.example/"}


def test_canonical_fails_when_given_twice():
    head = '<link rel="canonical" href="/a"><link rel="canonical" href="/b">'

    outcome = seo.canonical_tag(make_context(page(head)))

    assert outcome.errors == {"too_many": ["https://shop.example/a", "https://shop.example/b"]}


def test_hreflang_passes_with_valid_language_codes():
    head = (
        '<link rel="alternate" hreflang="en-GB" href="/en">'
        '<link rel="alternate" hreflang="x-default" href="/">'
        '<link rel="alternate" hreflang="zh-Hant-TW" href="/tw">'
    )

    assert seo.hreflang(make_context(page(head))).passed


def test_hreflang_passes_when_there_is_none():
    assert seo.hreflang(make_context(page())).passed


def test_hreflang_fails_listing_invalid_codes():
    head = '<link rel="alternate" hreflang="english" href="/en"><link rel="alternate" hreflang="fr" href="/fr">'

    outcome = seo.hreflang(make_context(page(head)))

    assert outcome.errors == {"bad_format": [{"hreflang": "english", "href": "https://shop.example/en"}]}


def test_404_page_passes_when_a_random_path_answers_404():
    resources = Resources(not_found=probe("https://shop.example/x", status=404, content_type="text/html"))

    assert seo.not_found_page(make_context(resources=resources)).passed


def test_404_page_fails_when_a_random_path_answers_200():
    resources = Resources(not_found=probe("https://shop.example/x", status=200, content_type="text/html"))

    assert seo.not_found_page(make_context(resources=resources)).errors == {"wrong_status": 200}


def test_404_page_fails_naming_the_error_when_the_probe_failed():
    resources = Resources(not_found=failed_probe("https://shop.example/x"))

    outcome = seo.not_found_page(make_context(resources=resources))

    assert outcome.errors == {"failed": "The page did not answer within 10 seconds."}


def test_robots_passes_when_robots_txt_allows_the_page():
    robots = b"User-agent: *\nDisallow: /checkout\n"
    resources = Resources(robots=probe("https://shop.example/robots.txt", body=robots))

    assert seo.robots(make_context(resources=resources)).passed


def test_robots_passes_when_there_is_no_robots_txt():
    resources = Resources(robots=probe("https://shop.example/robots.txt", status=404, content_type="text/html"))

    assert seo.robots(make_context(resources=resources)).passed


def test_robots_fails_naming_the_rule_that_disallows_the_page():
    robots = b"User-agent: *\nAllow: /garden\nDisallow: /garden/spades\n"
    resources = Resources(robots=probe("https://shop.example/robots.txt", body=robots))

    assert seo.robots(make_context(resources=resources)).errors == {"disallowed": "Disallow: /garden/spades"}


def test_robots_fails_when_robots_txt_answers_a_server_error():
    resources = Resources(robots=probe("https://shop.example/robots.txt", status=503))

    assert seo.robots(make_context(resources=resources)).errors == {"failed": "robots.txt answered HTTP 503"}


def test_noindex_passes_without_a_robots_meta_tag():
    assert seo.noindex(make_context(page('<meta name="robots" content="index, follow">'))).passed


def test_noindex_fails_with_a_noindex_meta_tag():
    outcome = seo.noindex(make_context(page('<meta name="robots" content="noindex, follow">')))

    assert outcome.errors == {"noindex": "noindex, follow"}


def test_noindex_header_passes_without_x_robots_tag():
    assert seo.noindex_header(make_context(headers={"x-robots-tag": "nofollow"})).passed


def test_noindex_header_fails_with_x_robots_tag_noindex():
    outcome = seo.noindex_header(make_context(headers={"x-robots-tag": "googlebot: noindex"}))

    assert outcome.errors == {"noindex": "googlebot: noindex"}


def test_in_page_links_pass_below_the_limit_and_split_internal_from_external():
    body = '<a href="/rakes">Rakes</a><a href="https://other.example/">Other</a>'

    outcome = seo.in_page_links(make_context(page("", body)))

    assert outcome.passed
    assert outcome.value["internals"] == ["https://shop.example/rakes"]
    assert outcome.value["externals"] == ["https://other.example/"]


def test_in_page_links_pass_with_hundreds_of_links():
    body = "".join(f'<a href="/p{n}">Page {n}</a>' for n in range(600))

    assert seo.in_page_links(make_context(page("", body))).passed


def test_in_page_links_fail_above_the_limit():
    body = "".join(f'<a href="/p{n}">Page {n}</a>' for n in range(151))

    outcome = seo.in_page_links(make_context(page("", body), thresholds={"max_links": 150}))

    assert outcome.errors == {"too_many": {"max": 150, "current": 151}}


def test_nofollow_links_pass_when_only_external_links_are_nofollow():
    body = '<a href="https://ads.example/" rel="sponsored nofollow">Sponsor</a>'

    assert seo.nofollow_links(make_context(page("", body))).passed


def test_nofollow_links_fail_listing_internal_nofollow_links():
    body = '<a href="/rakes" rel="nofollow">Rakes</a>'

    outcome = seo.nofollow_links(make_context(page("", body)))

    assert outcome.errors == {"internal_nofollow": ["https://shop.example/rakes"]}


def test_link_text_passes_for_descriptive_text():
    body = '<a href="/rakes">Leaf rakes</a><a href="/x" aria-label="Close menu">x</a><a href="#top"></a>'

    assert seo.link_text(make_context(page("", body))).passed


def test_link_text_fails_listing_generic_links():
    body = '<a href="/rakes">Click here</a><a href="/hoes"></a><a href="/ads" rel="nofollow">here</a>'

    outcome = seo.link_text(make_context(page("", body)))

    assert outcome.errors == {"generic": [{"url": "https://shop.example/rakes", "text": "Click here"}]}


def test_crawlable_links_pass_for_http_mailto_and_named_anchors():
    body = '<a href="/rakes">Rakes</a><a href="mailto:a@shop.example">Mail</a><a name="top" href="">Top</a>'

    outcome = seo.crawlable_links(make_context(page("", body)))

    assert outcome.passed
    assert outcome.value == {"links": 3, "uncrawlable": 0}


def test_crawlable_links_fail_listing_javascript_file_and_empty_hrefs():
    body = (
        '<a href="javascript:void(0)">Menu</a><a href="file:///C:/site/index.html">Home</a>'
        '<a href=" ">Empty</a><a href="https://shop.example:99999/">Bad port</a>'
        '<a href="javascript:void(0)" role="button">Menu</a>'
    )

    outcome = seo.crawlable_links(make_context(page("", body)))

    assert outcome.errors == {
        "uncrawlable": [
            "javascript:void(0)",
            "file:///C:/site/index.html",
            "(empty href)",
            "https://shop.example:99999/",
        ]
    }


def test_link_url_readability_passes_for_readable_internal_links():
    assert seo.link_url_readability(make_context(page("", '<a href="/leaf-rakes">Leaf rakes</a>'))).passed


def test_link_url_readability_fails_listing_unreadable_internal_links():
    body = '<a href="/Product_View?id=1&amp;cat=2&amp;s=3">Leaf rakes</a>'

    outcome = seo.link_url_readability(make_context(page("", body)))

    assert outcome.errors == {"unfriendly_urls": ["https://shop.example/Product_View?id=1&cat=2&s=3"]}


def test_language_passes_with_a_valid_lang_attribute():
    outcome = seo.language(make_context(page(lang="en-GB")))

    assert outcome.passed
    assert outcome.value == "en-GB"


def test_language_fails_without_a_lang_attribute():
    assert seo.language(make_context("<html><body>x</body></html>")).errors == {"missing": None}


def test_language_fails_with_a_malformed_lang_attribute():
    assert seo.language(make_context(page(lang="english"))).errors == {"bad_format": "english"}


def test_favicon_passes_with_an_icon_link():
    outcome = seo.favicon(make_context(page('<link rel="icon" href="/icon.svg">')))

    assert outcome.value == "https://shop.example/icon.svg"


def test_favicon_passes_with_a_root_favicon_ico():
    resources = Resources(favicon=probe("https://shop.example/favicon.ico", content_type="image/x-icon"))

    assert seo.favicon(make_context(page(), resources=resources)).passed


def test_favicon_fails_without_an_icon_link_or_favicon_ico():
    resources = Resources(favicon=probe("https://shop.example/favicon.ico", status=404, content_type="text/html"))

    assert seo.favicon(make_context(page(), resources=resources)).errors == {"missing": None}
