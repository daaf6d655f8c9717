"""The checks, one module per category, in the order reports show them."""

from reports.analysis.checks import misc, performance, security, seo
from reports.analysis.checks.base import Category
from reports.analysis.context import Context

CATEGORIES: list[Category] = [seo.category, performance.category, security.category, misc.category]


def run_checks(context: Context) -> dict[str, dict[str, dict]]:
    """Every check's result, as {category: {check key: {passed, importance, value, errors}}}."""
    return {category.name: {check.key: check.evaluate(context) for check in category.checks} for category in CATEGORIES}
