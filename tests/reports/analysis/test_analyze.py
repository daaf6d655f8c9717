"""analyze() end to end, against the local test site."""

import json

from django.conf import settings as django_settings

from reports.analysis import AnalysisResult, analyze
from tests.reports.testsite import ASSETS

# Served over plain HTTP, the good page can only fail the checks that need TLS.
TLS_CHECKS = {("performance", "http2"), ("security", "https_encryption"), ("security", "hsts")}


def failed_checks(result: AnalysisResult) -> set[tuple[str, str]]:
    return {
        (category, key) for category, checks in result.results.items() for key, c in checks.items() if not c["passed"]
    }


def test_a_near_perfect_page_fails_only_the_checks_that_need_https(test_site):
    result = analyze(test_site.url("/good"))

    assert failed_checks(result) == TLS_CHECKS
    # Without HTTPS, a high-importance check, the page cannot rate good however well it does otherwise.
    assert result.score == 73  # 100 - 25 (https) - 1 (http2) - 1 (hsts)
    assert result.rating == "decent"


def test_a_bad_page_fails_most_checks_and_is_rated_bad(test_site):
    result = analyze(test_site.url("/bad", site="bad"))

    assert result.rating == "bad"
    assert result.score < 50
    assert len(failed_checks(result)) >= 30


def test_results_have_five_categories_of_checks_in_the_documented_shape(test_site):
    result = analyze(test_site.url("/good"))

    assert list(result.results) == ["seo", "performance", "security", "accessibility", "miscellaneous"]
    assert sum(len(checks) for checks in result.results.values()) >= 55
    for checks in result.results.values():
        for check in checks.values():
            assert set(check) == {"passed", "importance", "value", "errors"}
            assert check["importance"] in {"high", "medium", "low"}


def test_to_json_is_serialisable_and_complete(test_site):
    url = test_site.url("/good")

    data = json.loads(json.dumps(analyze(url).to_json()))

    assert set(data) == {"url", "final_url", "score", "rating", "scores", "results", "timing", "rendering"}
    assert data["url"] == url
    assert set(data["scores"]) == set(data["results"])
    assert data["rendering"] == {"document": "source"}
    assert set(data["timing"]) >= {"ttfb_ms", "total_ms"}


def test_redirects_are_followed_to_the_final_url(test_site):
    result = analyze(test_site.url("/redirect/chain"))

    assert result.url == test_site.url("/redirect/chain")
    assert result.final_url == test_site.url("/good")
    assert result.timing["redirects"] == 3


def test_a_gzipped_page_is_decoded_and_passes_text_compression(test_site):
    result = analyze(test_site.url("/gzip"))

    assert result.results["performance"]["text_compression"]["value"]["encoding"] == "gzip"
    assert result.results["seo"]["title"]["passed"]


def test_a_brotli_page_is_decoded_and_passes_text_compression(test_site):
    result = analyze(test_site.url("/brotli"))

    assert result.results["performance"]["text_compression"]["value"]["encoding"] == "br"
    assert result.results["seo"]["headings"]["value"]["h1"] == ["Durable garden tools, forged to last"]


def test_invalid_bytes_in_a_page_are_reported_by_the_charset_check(test_site):
    result = analyze(test_site.url("/bad-encoding"))

    assert "invalid_bytes" in result.results["miscellaneous"]["charset"]["errors"]


def test_an_unknown_charset_is_reported_and_the_page_still_analysed(test_site):
    result = analyze(test_site.url("/unknown-charset"))

    assert result.results["miscellaneous"]["charset"]["errors"] == {"unknown": "x-made-up"}
    assert result.results["seo"]["title"]["passed"]


def test_a_latin1_page_declared_in_its_meta_tag_is_decoded(test_site):
    result = analyze(test_site.url("/latin1"))

    assert result.results["seo"]["headings"]["value"]["h1"] == ["Durable garden tools, forgés to last"]
    assert result.results["miscellaneous"]["charset"]["passed"]


def test_a_page_without_content_type_is_analysed_as_html(test_site):
    assert analyze(test_site.url("/no-content-type")).results["seo"]["title"]["passed"]


def test_site_files_are_found_on_a_good_site(test_site):
    results = analyze(test_site.url("/good")).results

    assert results["seo"]["robots"]["passed"]
    assert results["seo"]["404_page"]["value"]["status"] == 404
    assert results["miscellaneous"]["sitemap"]["value"] == test_site.url("/sitemap-index.xml")
    assert results["miscellaneous"]["llms_txt"]["passed"]


def test_site_files_are_judged_on_a_soft_404_site(test_site):
    results = analyze(test_site.url("/bad", site="bad")).results

    assert results["seo"]["robots"]["errors"] == {"disallowed": "Disallow: /"}
    assert results["seo"]["404_page"]["errors"] == {"wrong_status": 200}
    assert not results["miscellaneous"]["sitemap"]["passed"]
    assert results["miscellaneous"]["llms_txt"]["value"] is None  # a soft-404 page is no llms.txt


def test_linked_assets_are_fetched_to_judge_them(test_site):
    results = analyze(test_site.url("/bad", site="bad")).results

    unminified = results["performance"]["minification"]["errors"]["unminified"]
    assert [item["url"] for item in unminified] == [
        test_site.url("/static/style.css", site="bad"),
        test_site.url("/static/app.js", site="bad"),
    ]
    assert ("HEAD", "/images/photo.jpg") in test_site.requests("bad")


def test_linked_assets_are_counted_and_weighed(test_site):
    requests = analyze(test_site.url("/good")).results["performance"]["http_requests"]["value"]

    assert requests["images"] == [test_site.url("/images/hero.webp"), test_site.url("/images/rake.avif")]
    paths = ["/static/style.min.css", "/static/app.min.js", "/images/hero.webp", "/images/rake.avif"]
    assert requests["bytes"] == sum(len(ASSETS[path][1]) for path in paths)


def test_sub_requests_stop_at_the_configured_cap(test_site, settings):
    settings.REPORTS_MAX_SUBREQUESTS = 2
    before = len(test_site.requests())

    result = analyze(test_site.url("/good"))

    # The page, then robots.txt and the sitemap, which come first.
    assert [path for _, path in test_site.requests()[before:]] == ["/good", "/robots.txt", "/sitemap-index.xml"]
    assert result.timing["subrequests"] == 2
    assert result.results["seo"]["404_page"]["errors"] == {"failed": "not checked"}


def test_requests_carry_the_configured_user_agent(test_site, settings):
    settings.REPORTS_USER_AGENT = "TestBot/9.9"
    before = len(test_site.requests())

    analyze(test_site.url("/good"))

    assert set(test_site.user_agents()[before:]) == {"TestBot/9.9"}


def test_thresholds_from_settings_change_the_verdict(test_site, settings):
    settings.REPORTS_THRESHOLDS = {"max_links": 3}

    result = analyze(test_site.url("/good"))

    assert result.results["seo"]["in_page_links"]["errors"]["too_many"]["max"] == 3


def test_weights_and_bands_from_settings_change_score_and_rating(test_site, settings):
    settings.REPORTS_IMPORTANCE_WEIGHTS = {"high": 1, "medium": 1, "low": 1}
    settings.REPORTS_RATING_BANDS = {"good": 95, "decent": 90}

    result = analyze(test_site.url("/good"))

    total = sum(len(checks) for checks in result.results.values())
    assert round(100 * (total - 3) / total) >= 95
    assert result.score == 94  # https_encryption (high) failed: held below the good floor
    assert result.rating == "decent"


def test_the_fixture_allows_loopback_only_for_the_test_using_it():
    assert django_settings.REPORTS_ALLOW_PRIVATE_NETWORKS is False


def test_a_near_perfect_page_over_https_passes_every_check(tls_test_site):
    result = analyze(tls_test_site.url("/good", site="tls"))

    assert failed_checks(result) == set()
    assert result.score == 100
    assert result.results["performance"]["http2"]["value"] == "HTTP/2"
    assert result.results["security"]["hsts"]["value"] == "max-age=31536000; includeSubDomains"


def test_a_deflate_page_is_decoded(test_site):
    result = analyze(test_site.url("/deflate"))

    assert result.results["performance"]["text_compression"]["value"]["encoding"] == "deflate"
    assert result.results["seo"]["title"]["passed"]
