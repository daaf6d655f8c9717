"""The checks, by category, in the order reports show them."""

from ..context import Context
from .base import Category, Check, Outcome
from .misc import miscellaneous
from .performance import performance
from .security import security
from .seo import seo

CATEGORIES: list[Category] = [seo, performance, security, miscellaneous]


def run_checks(context: Context) -> dict[str, dict[str, dict]]:
    """Every check's result, as {category: {check key: {passed, importance, value, errors}}}."""
    return {category.name: {check.key: check.evaluate(context) for check in category.checks} for category in CATEGORIES}


__all__ = ["CATEGORIES", "Category", "Check", "Outcome", "run_checks"]
