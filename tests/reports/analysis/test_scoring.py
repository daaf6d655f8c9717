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


def test_each_category_scores_by_the_same_rules_from_its_own_checks():
    checks = {
        "seo": {"title": {"importance": "high", "passed": False}, "h1": {"importance": "medium", "passed": False}},
        "performance": {"size": {"importance": "medium", "passed": False}},
        "security": {"hsts": {"importance": "low", "passed": False}},
        "miscellaneous": {"charset": {"importance": "medium", "passed": True}},
    }

    scores = scoring.category_scores(checks, WEIGHTS, BANDS)

    # seo: 100 - 25 - 5, below good for its high failure; security: only a low failure, so at least decent.
    assert scores == {"seo": 70, "performance": 95, "security": 99, "miscellaneous": 100}
    assert scoring.category_scores(checks, {"high": 25, "medium": 5, "low": 60}, BANDS)["security"] == 50
