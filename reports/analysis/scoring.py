"""The score and its rating: how a report's 0-100 number is made.

1. Each check weighs by its importance: high 10, medium 5, low 1 (REPORTS_IMPORTANCE_WEIGHTS).
   Importance follows what a failure costs a visitor or a crawler: high means the page is
   unreachable, unlisted or unsafe (no title, noindex, blocked by robots.txt, no HTTPS);
   medium means a real cost to some visitors or to search (no description, unlabelled
   fields, quirks mode, a slow or heavy page); low is advice whose absence costs little.
2. The score is 100 * the weight of passed checks / the weight of all checks, rounded
   half up.
3. Two rules keep the rating honest where the ratio alone would not:
   - a page that fails no high or medium check scores at least the "decent" floor, so
     failing only low-importance checks can never rate it bad;
   - a page failing a high-importance check scores below the "good" floor, since one
     such failure (a noindexed page, say) undoes everything else.
4. The rating is "good" at or above the good floor (80), "decent" at or above the decent
   floor (50), else "bad" (REPORTS_RATING_BANDS; Lighthouse uses 90/50 for its categories).
"""

import math

RATINGS = ("good", "decent", "bad")


def score(results: dict[str, dict[str, dict]], weights: dict[str, float], bands: dict[str, float]) -> int:
    """The page's score from its check results (see the module docstring)."""
    total = passed = 0.0
    failed = set()
    for checks in results.values():
        for result in checks.values():
            weight = weights[result["importance"]]
            total += weight
            if result["passed"]:
                passed += weight
            else:
                failed.add(result["importance"])
    value = math.floor(100 * passed / total + 0.5) if total else 100
    if "high" in failed:
        value = min(value, math.ceil(bands["good"]) - 1)
    elif "medium" not in failed:
        value = max(value, math.ceil(bands["decent"]))
    return value


def rating(value: int, bands: dict[str, float]) -> str:
    """ "good" at or above the good floor, "decent" at or above the decent floor, else "bad"."""
    if value >= bands["good"]:
        return "good"
    if value >= bands["decent"]:
        return "decent"
    return "bad"
