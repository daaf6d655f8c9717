import pytest
from django.core.exceptions import ImproperlyConfigured

from reports.analysis import config, scoring

WEIGHTS = {"high": 25, "medium": 5, "low": 1}
BANDS = {"good": 80, "decent": 50}


def results(*checks: tuple[str, bool]) -> dict:
    return {"seo": {f"check{n}": {"importance": imp, "passed": ok} for n, (imp, ok) in enumerate(checks)}}


def test_each_failed_check_takes_its_weight_off_100():
    checks = results(("high", True), ("medium", False), ("medium", False), ("low", False), ("low", True))

    assert scoring.score(checks, WEIGHTS, BANDS) == 89


def test_passed_checks_add_nothing():
    few = results(("medium", False))
    many = results(("medium", False), *[("high", True)] * 30)

    assert scoring.score(few, WEIGHTS, BANDS) == scoring.score(many, WEIGHTS, BANDS) == 95


def test_score_rounds_half_up_and_stops_at_zero():
    assert scoring.score(results(("medium", False)), {"high": 25, "medium": 2.5, "low": 1}, BANDS) == 98
    assert scoring.score(results(*[("medium", False)] * 30), WEIGHTS, BANDS) == 0


def test_a_page_failing_only_low_importance_checks_is_at_least_decent():
    checks = results(("high", True), *[("low", False)] * 60)

    value = scoring.score(checks, WEIGHTS, BANDS)

    assert value == 50
    assert scoring.rating(value, BANDS) == "decent"


def test_a_failed_high_importance_check_keeps_the_score_below_good():
    checks = results(("high", False), *[("medium", True)] * 40)

    value = scoring.score(checks, {"high": 10, "medium": 5, "low": 1}, BANDS)

    assert value == 79
    assert scoring.rating(value, BANDS) == "decent"


def test_the_caps_follow_the_rating_bands():
    bands = {"good": 95, "decent": 60}
    weights = {"high": 1, "medium": 5, "low": 1}

    assert scoring.score(results(("high", False)), weights, bands) == 94
    assert scoring.score(results(*[("low", False)] * 60), weights, bands) == 60


@pytest.mark.parametrize(
    ("score", "rating"), [(100, "good"), (80, "good"), (79, "decent"), (50, "decent"), (49, "bad")]
)
def test_rating_follows_the_bands(score, rating):
    assert scoring.rating(score, BANDS) == rating


def test_settings_override_only_the_thresholds_they_name(settings):
    settings.REPORTS_THRESHOLDS = {"max_links": 300}

    thresholds = config.thresholds()

    assert thresholds["max_links"] == 300
    assert thresholds["max_title_optimal"] == 70


def test_settings_from_the_environment_are_json_objects(settings):
    settings.REPORTS_RATING_BANDS = '{"good": 90}'

    assert config.rating_bands() == {"good": 90, "decent": 50}


def test_an_unknown_setting_key_is_refused(settings):
    settings.REPORTS_IMPORTANCE_WEIGHTS = {"critical": 20}

    with pytest.raises(ImproperlyConfigured, match="unknown keys"):
        config.importance_weights()


def test_malformed_json_in_a_setting_is_refused(settings):
    settings.REPORTS_THRESHOLDS = "{max_links: 3"

    with pytest.raises(ImproperlyConfigured, match="must be a JSON object"):
        config.thresholds()


def test_a_negative_setting_value_is_refused(settings):
    settings.REPORTS_THRESHOLDS = {"max_links": -1}

    with pytest.raises(ImproperlyConfigured, match="non-negative number"):
        config.thresholds()


def test_performance_security_and_miscellaneous_score_by_the_same_rules_from_their_own_checks():
    checks = {
        "performance": {
            "size": {"importance": "high", "passed": False},
            "h2": {"importance": "medium", "passed": False},
        },
        "security": {"hsts": {"importance": "low", "passed": False}},
        "miscellaneous": {"charset": {"importance": "medium", "passed": True}},
    }

    scores = scoring.category_scores(checks, WEIGHTS, BANDS)

    # performance: 100 - 25 - 5, below good for its high failure; security: only a low failure, so at least decent.
    assert scores == {"performance": 70, "security": 99, "miscellaneous": 100}
    assert scoring.category_scores(checks, {"high": 25, "medium": 5, "low": 60}, BANDS)["security"] == 50


def check(passed: bool, importance: str = "medium", value=None, errors=None) -> dict:
    return {"passed": passed, "importance": importance, "value": value, "errors": errors or {}}


def crawlable_page(**seo) -> dict:
    """SEO results of an indexable page with links, no images and no canonical, plus `seo`."""
    return {
        "seo": {
            "robots": check(True, "high"),
            "noindex": check(True, "high"),
            "noindex_header": check(True, "high"),
            "title": check(True, "high", "Home"),
            "meta_description": check(True, value="A shop for garden tools."),
            "link_text": check(True, value=12),
            "crawlable_links": check(True, value={"links": 12, "uncrawlable": 0}),
            "image_keywords": check(True, value={"images": 0, "without_alt": 0}),
            "hreflang": check(True, "low", []),
            "canonical_tag": check(True, value=None),
            "language": check(True, value="en"),
            **seo,
        }
    }


def test_seo_scores_as_lighthouse_does_the_weighted_share_of_the_audits_that_apply():
    # Applying: is-crawlable (93/23), title, description, link text, crawlable links, hreflang (1 each),
    # and language, a medium check Lighthouse's SEO has no audit for (1). No images, no canonical: left out.
    results = crawlable_page(meta_description=check(False, value=None, errors={"missing": None}))

    assert scoring.category_scores(results, WEIGHTS, BANDS)["seo"] == round(100 * (1 - 1 / (93 / 23 + 6)))  # 90


def test_a_check_with_nothing_to_test_is_left_out_of_the_seo_score():
    failing = {"meta_description": check(False, value=None, errors={"missing": None})}
    without_images = scoring.category_scores(crawlable_page(**failing), WEIGHTS, BANDS)["seo"]
    with_images = crawlable_page(**failing, image_keywords=check(True, value={"images": 4, "without_alt": 0}))

    # Four images with alt text: image-alt now applies and passes, so the one failure weighs less.
    assert scoring.category_scores(with_images, WEIGHTS, BANDS)["seo"] == round(100 * (1 - 1 / (93 / 23 + 7)))
    assert without_images == 90


def test_a_page_lighthouse_cannot_index_loses_its_seo_score_and_stays_below_good():
    results = crawlable_page(noindex=check(False, "high", errors={"noindex": "noindex"}))

    assert scoring.category_scores(results, WEIGHTS, BANDS)["seo"] == round(100 * 6 / (93 / 23 + 6))  # 60


def test_a_failed_high_check_keeps_seo_below_good_even_when_lighthouse_weighs_it_little():
    results = crawlable_page(title=check(False, "high", errors={"missing": None}))

    assert scoring.category_scores(results, WEIGHTS, BANDS)["seo"] == 79  # 1 of 10.04 would be 90


def test_low_importance_seo_advice_does_not_count_in_the_seo_score():
    results = crawlable_page(keyword_consistency=check(False, "low"), favicon=check(False, "low"))

    assert scoring.category_scores(results, WEIGHTS, BANDS)["seo"] == 100
    # ... while the overall score still takes its point off for each.
    assert scoring.score(results, WEIGHTS, BANDS) == 98


def accessible_page(**checks) -> dict:
    """A rendered page's checks that Lighthouse's accessibility category shares, all passing unless
    `checks` says otherwise (keyed "category.key")."""
    results = crawlable_page()
    results["accessibility"] = {
        "link_name": check(True, value={"links": 12, "unnamed": 0}),
        "button_name": check(True, value={"buttons": 0, "unnamed": 0}),
        "form_labels": check(True, value={"fields": 0, "unlabelled": 0}),
        "zoomable": check(True, value="width=device-width, initial-scale=1"),
        "heading_order": check(True, "low", ["h1", "h2"]),
        "color_contrast": check(True, value={"text_elements": 40}),
        "tap_targets": check(True, value={"targets": 12, "failing": 0}),
        "font_size": check(True, value={}),
        "image_aspect_ratio": check(True, "low", {"images": 0}),
    }
    results["miscellaneous"] = {"iframes": check(True, value=[])}
    for name, result in checks.items():
        category, key = name.split(".")
        results[category][key] = result
    return results


# Applying on accessible_page(): title 7, html-has-lang 7, html-lang-valid 7, link-name 7, meta-viewport 10,
# heading-order 3, color-contrast 7, target-size 7 (Lighthouse 12's weights), and font_size, a medium check
# Lighthouse's accessibility has no audit for (7). No buttons, fields, images or frames: left out.
APPLYING = 7 + 7 + 7 + 7 + 10 + 3 + 7 + 7 + 7


def test_accessibility_scores_with_lighthouses_weights_and_counts_the_checks_listed_elsewhere():
    assert scoring.category_scores(accessible_page(), WEIGHTS, BANDS)["accessibility"] == 100
    # No lang: html-has-lang fails (7) and html-lang-valid no longer applies (7 less in all).
    no_lang = accessible_page(**{"seo.language": check(False, errors={"missing": None})})
    assert scoring.category_scores(no_lang, WEIGHTS, BANDS)["accessibility"] == round(100 * (1 - 7 / (APPLYING - 7)))
    # A frame without a title: frame-title now applies and fails.
    untitled = accessible_page(**{"miscellaneous.iframes": check(False, value=["/map"], errors={"missing_title": 1})})
    assert scoring.category_scores(untitled, WEIGHTS, BANDS)["accessibility"] == round(100 * (1 - 7 / (APPLYING + 7)))


def test_heavier_lighthouse_audits_cost_more_accessibility():
    def score_failing(name: str, value) -> int:
        results = accessible_page(**{name: check(False, value=value, errors={"missing": ["x"]})})
        return scoring.category_scores(results, WEIGHTS, BANDS)["accessibility"]

    # image-alt weighs 10, heading-order 3: both fail the same, both cost what Lighthouse's weights say.
    images = score_failing("seo.image_keywords", {"images": 3, "without_alt": 1})
    headings = score_failing("accessibility.heading_order", ["h1", "h3"])
    assert images == round(100 * (1 - 10 / (APPLYING + 10)))  # 84
    assert headings == round(100 * (1 - 3 / APPLYING))  # 95
    assert images < headings


def test_source_mode_accessibility_is_scored_from_the_checks_it_has():
    results = accessible_page()
    for key in ("color_contrast", "tap_targets", "font_size", "image_aspect_ratio"):
        del results["accessibility"][key]  # rendered-only checks
    results["accessibility"]["link_name"] = check(False, value={"links": 12, "unnamed": 2}, errors={"missing": ["#"]})

    assert scoring.category_scores(results, WEIGHTS, BANDS)["accessibility"] == round(100 * (1 - 7 / 41))  # 83


def test_the_other_categories_keep_the_points_rule_and_stored_results_of_any_shape_are_scored():
    results = accessible_page(**{"seo.link_text": check(True, value=None)})
    results["performance"] = {"page_size": check(False), "minification": check(False, "low")}
    results["accessibility"]["link_name"] = check(True, value="unexpected")  # a value of another shape applies

    scores = scoring.category_scores(results, WEIGHTS, BANDS)

    assert scores["performance"] == 94
    assert scores["accessibility"] == 100 and scores["seo"] == 100
    assert "security" not in scores  # a category without checks gets no score
