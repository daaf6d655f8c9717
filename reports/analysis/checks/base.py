"""How a check is declared, and the shape of what it yields."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from reports.analysis.context import Context

HIGH, MEDIUM, LOW = "high", "medium", "low"

# Evidence lists (URLs, tags …) are cut to this many items; the counts stay exact.
EVIDENCE_LIMIT = 50


@dataclass(frozen=True)
class Outcome:
    """A check's verdict: it passes when there are no errors."""

    value: Any = None
    errors: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not self.errors


CheckFunction = Callable[[Context], Outcome]


@dataclass(frozen=True)
class Check:
    key: str
    importance: str
    run: "CheckFunction"
    rendered_only: bool = False  # needs the page's layout: skipped unless the page was rendered

    def evaluate(self, context: Context) -> dict[str, Any]:
        outcome = self.run(context)
        return {
            "passed": outcome.passed,
            "importance": self.importance,
            "value": outcome.value,
            "errors": outcome.errors,
        }


class Category:
    """A named, ordered group of checks, filled by the `@category.check(...)` decorator."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.checks: list[Check] = []

    def check(
        self, key: str, importance: str, *, rendered_only: bool = False
    ) -> Callable[[CheckFunction], CheckFunction]:
        def register(run: CheckFunction) -> CheckFunction:
            self.checks.append(Check(key, importance, run, rendered_only))
            return run

        return register


def capped(items: Iterable[Any]) -> list[Any]:
    return list(items)[:EVIDENCE_LIMIT]


def limit(minimum: float | None = None, maximum: float | None = None, *, current: float) -> dict[str, float]:
    """The detail of a `length`/`too_large`/… error: the bound(s) broken and the current value."""
    detail = {"min": minimum, "max": maximum, "current": current}
    return {key: value for key, value in detail.items() if value is not None}


def directives(header: str, separator: str) -> dict[str, str]:
    """`max-age=60; includeSubDomains` → {"max-age": "60", "includesubdomains": ""}."""
    parsed = {}
    for part in header.split(separator):
        name, _, value = part.partition("=")
        parsed[name.strip().lower()] = value.strip().strip('"')
    return parsed
