"""The weighted score and its rating."""

import math

RATINGS = ("good", "decent", "bad")


def score(results: dict[str, dict[str, dict]], weights: dict[str, float]) -> int:
    """100 * the weight of passed checks / the weight of all checks, rounded half up (100 if nothing weighs)."""
    total = passed = 0.0
    for checks in results.values():
        for result in checks.values():
            weight = weights[result["importance"]]
            total += weight
            if result["passed"]:
                passed += weight
    return math.floor(100 * passed / total + 0.5) if total else 100


def rating(value: int, bands: dict[str, float]) -> str:
    """ "good" at or above the good floor, "decent" at or above the decent floor, else "bad"."""
    if value >= bands["good"]:
        return "good"
    if value >= bands["decent"]:
        return "decent"
    return "bad"
