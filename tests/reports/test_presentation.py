from reports import presentation


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
    lines = presentation.problem_lines({"length": {"min": 1, "max": 60}, "missing": None})

    assert lines == ["Length: min 1, max 60", "Missing"]


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
