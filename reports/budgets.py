"""Budgets: the minimums a project's reports must meet, for CI jobs to fail on.

A project's budget (`Project.budget`, set with PATCH /api/v1/projects/{project}) is

    {"min_score": 80, "categories": {"seo": 90, "security": 70}, "checks": ["title", "https_encryption"]}

every key optional: a minimum overall score, minimum per-category scores
(reports.comparison.category_scores) and checks that must pass. `evaluate()` says
whether a report meets it: `{"passed": bool, "failures": [...]}`, or None when the
project has no budget or the report has never been analysed (nothing to judge yet).
Each failure's `message` is the API's, in English; `failure_text()` tells it on a page,
in the reader's language.
"""

from collections.abc import Callable

from django.utils.translation import gettext, ngettext

from reports.analysis.checks import CATEGORIES
from reports.comparison import category_scores
from reports.presentation import CATEGORY_LABELS, humanize

KNOWN_KEYS = ("min_score", "categories", "checks")


def known_categories() -> list[str]:
    return [category.name for category in CATEGORIES]


def known_checks() -> dict[str, str]:
    """check key → its category."""
    return {check.key: category.name for category in CATEGORIES for check in category.checks}


def _is_score(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 100


def validate(budget: object) -> tuple[dict, dict[str, list[str]]]:
    """The budget in its stored form, and the errors by field (`budget.min_score`…) if it is not valid."""
    if budget is None or budget == {}:
        return {}, {}
    if not isinstance(budget, dict):
        return {}, {"budget": ["The budget must be an object."]}
    errors: dict[str, list[str]] = {}
    unknown = sorted(set(budget) - set(KNOWN_KEYS))
    if unknown:
        errors["budget"] = [f"The budget has unknown keys: {', '.join(unknown)}; known: {', '.join(KNOWN_KEYS)}."]
    clean: dict = {}
    if budget.get("min_score") is not None:
        if _is_score(budget["min_score"]):
            clean["min_score"] = budget["min_score"]
        else:
            errors["budget.min_score"] = ["The budget.min_score must be an integer between 0 and 100."]
    categories = budget.get("categories")
    if categories is not None:
        if not isinstance(categories, dict):
            errors["budget.categories"] = ["The budget.categories must be an object of category → minimum score."]
        else:
            for name, minimum in categories.items():
                if name not in known_categories():
                    errors[f"budget.categories.{name}"] = [f"Unknown category; known: {', '.join(known_categories())}."]
                elif not _is_score(minimum):
                    errors[f"budget.categories.{name}"] = ["The minimum must be an integer between 0 and 100."]
            if categories:
                clean["categories"] = dict(categories)
    checks = budget.get("checks")
    if checks is not None:
        if not isinstance(checks, list) or not all(isinstance(check, str) for check in checks):
            errors["budget.checks"] = ["The budget.checks must be a list of check names."]
        else:
            unknown_checks = [check for check in checks if check not in known_checks()]
            if unknown_checks:
                errors["budget.checks"] = [f"Unknown checks: {', '.join(unknown_checks)}."]
            if checks:
                clean["checks"] = list(dict.fromkeys(checks))
    return clean, errors


def _find_check(results: dict, key: str) -> dict | None:
    for checks in results.values():
        if isinstance(checks, dict) and isinstance(checks.get(key), dict):
            return checks[key]
    return None


def evaluate(budget: dict | None, *, score: int | None, results: dict | None) -> dict | None:
    """Whether a report with this score and these results meets the budget (None: no budget, or no results yet)."""
    if not budget or score is None:
        return None
    results = results or {}

    def check_passed(key: str) -> bool | None:
        check = _find_check(results, key)
        return None if check is None else bool(check.get("passed"))

    return judge(budget, score=score, category_scores=lambda: category_scores(results), check_passed=check_passed)


def judge(
    budget: dict, *, score: int, category_scores: Callable[[], dict], check_passed: Callable[[str], bool | None]
) -> dict:
    """The verdict of a budget on a score, category scores (computed only if needed) and checks.

    `check_passed(key)` is True, False, or None when the check did not run. Reports give their
    own values (evaluate); site audits their mean scores and "passes on every page" (reports/audits/summary.py).
    """
    failures = []
    minimum = budget.get("min_score")
    if minimum is not None and score < minimum:
        failures.append(
            {
                "rule": "min_score",
                "name": "score",
                "expected": minimum,
                "actual": score,
                "message": f"The score is {score}, below the minimum of {minimum}.",
            }
        )
    if budget.get("categories"):
        scores = category_scores()
        for name, minimum in budget["categories"].items():
            actual = scores.get(name)
            if actual is None or actual < minimum:
                failures.append(
                    {
                        "rule": "category",
                        "name": name,
                        "expected": minimum,
                        "actual": actual,
                        "message": f"The {name} score is {actual}, below the minimum of {minimum}."
                        if actual is not None
                        else f"The report has no {name} results.",
                    }
                )
    for key in budget.get("checks", []):
        passed = check_passed(key)
        if not passed:
            failures.append(
                {
                    "rule": "check",
                    "name": key,
                    "expected": True,
                    "actual": passed,
                    "message": f"The check {key} must pass." if passed is not None else f"The check {key} did not run.",
                }
            )
    return {"passed": not failures, "failures": failures}


def failure_text(failure: dict, *, mean: bool = False) -> str:
    """A failure of judge() in the reader's language, for pages; `mean` for a site audit's mean scores."""
    values = {"actual": failure["actual"], "minimum": failure["expected"]}
    if failure["rule"] == "min_score":
        if mean:
            return gettext("The mean score is %(actual)s, below the minimum of %(minimum)s.") % values
        return gettext("The score is %(actual)s, below the minimum of %(minimum)s.") % values
    if failure["rule"] == "category":
        category = CATEGORY_LABELS.get(failure["name"], failure["name"])
        if failure["actual"] is None:
            return gettext("The report has no %(category)s results.") % {"category": category}
        return gettext("The %(category)s score is %(actual)s, below the minimum of %(minimum)s.") % {
            **values,
            "category": category,
        }
    check = humanize(failure["name"])
    if failure["actual"] is None:
        return gettext("The check “%(check)s” did not run.") % {"check": check}
    if "pages_count" in failure:
        count = failure["pages_count"]
        return ngettext(
            "The check “%(check)s” must pass; it fails on %(count)s page.",
            "The check “%(check)s” must pass; it fails on %(count)s pages.",
            count,
        ) % {"check": check, "count": count}
    return gettext("The check “%(check)s” must pass.") % {"check": check}
