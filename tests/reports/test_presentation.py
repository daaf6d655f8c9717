import pytest

from reports import presentation
from reports.advice import ADVICE
from reports.analysis.checks import CATEGORIES


def test_categories_come_in_a_fixed_order_whatever_the_stored_order():
    results = {"security": {}, "miscellaneous": {}, "accessibility": {}, "seo": {}, "performance": {}}

    keys = [category.key for category in presentation.categories(results)]

    assert keys == ["seo", "performance", "security", "accessibility", "miscellaneous"]


def test_failed_and_important_checks_come_first():
    results = {
        "seo": {
            "a_low_fail": {"passed": False, "importance": "low"},
            "b_high_pass": {"passed": True, "importance": "high"},
            "c_high_fail": {"passed": False, "importance": "high"},
        }
    }

    checks = presentation.categories(results)[0].checks

    assert [check.key for check in checks] == ["c_high_fail", "a_low_fail", "b_high_pass"]


def test_errors_read_as_sentences_with_their_limits():
    lines = presentation.problem_lines({"length": {"min": 1, "max": 60, "current": 72}, "missing": None}, "character")

    assert lines == ["Wrong length: 72 characters (should be between 1 and 60 characters)", "Missing"]


@pytest.mark.parametrize(
    ("key", "check", "evidence", "problems"),
    [
        (
            "load_time",
            {"value": 5234, "errors": {"too_slow": {"max": 2000, "current": 5234}}},
            ["5,234 ms"],
            ["Too slow: 5,234 ms (should be at most 2,000 ms)"],
        ),
        (
            "page_size",
            {"value": 480123, "errors": {"too_large": {"max": 330000, "current": 480123}}},
            ["480 kB"],
            ["Too large: 480 kB (should be at most 330 kB)"],
        ),
        (
            "dom_size",
            {"value": 1614, "errors": {"too_many": {"max": 1500, "current": 1614}}},
            ["1,614 nodes"],
            ["Too many: 1,614 nodes (should be at most 1,500 nodes)"],
        ),
        (
            "http_requests",
            {"value": {"scripts": ["/app.js"], "images": [], "bytes": 4200}, "errors": {}},
            ["Scripts: /app.js", "Images: none", "Total size: 4.2 kB"],
            [],
        ),
        (
            "http_requests",
            {"value": {}, "errors": {"too_many": {"max": 50, "current": 61}}},
            [],
            ["Too many: 61 requests (should be at most 50 requests)"],
        ),
        (
            "text_compression",
            {"value": {"encoding": None, "transferred": 81000, "size": 81000}, "errors": {"missing": None}},
            ["Encoding: none", "Transferred: 81 kB", "Size: 81 kB"],
            ["Not compressed"],
        ),
        ("content_length", {"value": 1, "errors": {"too_few": {"min": 500, "current": 1}}}, ["1 word"], None),
        (
            "seo_friendly_url",
            {"value": "https://a.example/A", "errors": {"bad_format": {"too_many_params": {"max": 5, "current": 8}}}},
            ["https://a.example/A"],
            ["Badly formed: too many query parameters: 8 parameters (should be at most 5 parameters)"],
        ),
    ],
)
def test_numbers_are_shown_with_their_units(key, check, evidence, problems):
    view = presentation.check_view(key, {"passed": not check["errors"], "importance": "medium", **check})

    assert view.evidence == evidence
    if problems is not None:
        assert view.problems == problems


def test_a_number_of_a_check_without_a_unit_is_shown_as_stored():
    view = presentation.check_view("brand_new_check", {"passed": False, "value": 12345, "errors": {"odd": 7}})

    assert (view.label, view.evidence, view.problems, view.advice) == ("Brand new check", ["12,345"], ["Odd: 7"], None)


@pytest.mark.parametrize(
    ("key", "label"),
    [("hsts", "HSTS"), ("htst", "HSTS"), ("http2", "HTTP/2"), ("404_page", "404 page"), ("llms_txt", "llms.txt")],
)
def test_acronyms_keep_their_spelling(key, label):
    assert presentation.humanize(key) == label


def test_every_check_of_the_engine_has_advice():
    keys = {check.key for category in CATEGORIES for check in category.checks}

    assert keys - set(ADVICE) == set()


def test_failed_check_carries_its_advice():
    view = presentation.check_view("hsts", {"passed": False, "importance": "low", "errors": {"missing": None}})

    assert "Strict-Transport-Security" in view.advice.fix
    assert view.advice.why


def test_long_evidence_lists_are_cut_with_a_count_of_the_rest():
    lines = presentation.evidence_lines([f"/img/{n}.png" for n in range(60)])

    assert len(lines) == presentation.MAX_ITEMS + 1
    assert lines[-1] == "… and 10 more"


def test_malformed_results_give_no_categories_rather_than_an_error():
    assert presentation.categories(["not", "a", "dict"]) == []
    assert presentation.categories({"seo": "broken"}) == []


def test_category_counts_passed_checks():
    results = {"seo": {"a": {"passed": True, "importance": "high"}, "b": {"passed": False, "importance": "high"}}}

    category = presentation.categories(results)[0]

    assert (category.passed, category.total) == (1, 2)
