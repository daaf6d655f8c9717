"""The checks, one module per category, in the order reports show them."""

from reports.analysis.checks import accessibility, misc, performance, security, seo
from reports.analysis.checks.base import Category
from reports.analysis.context import Context

CATEGORIES: list[Category] = [
    seo.category,
    performance.category,
    security.category,
    accessibility.category,
    misc.category,
]


def run_checks(context: Context) -> dict[str, dict[str, dict]]:
    """Every check's result, as {category: {check key: {passed, importance, value, errors}}}.

    Checks that need layout are left out when the page was not rendered.
    """
    return {
        category.name: {
            check.key: check.evaluate(context)
            for check in category.checks
            if context.rendered is not None or not check.rendered_only
        }
        for category in CATEGORIES
    }
