"""The score and its rating: how a report's 0-100 number is made.

1. Every check has an importance, which follows what a failure costs a visitor or a crawler:
   - high: the page is unlisted, unreachable or unsafe (no title, noindex, blocked by
     robots.txt, no HTTPS);
   - medium: a real cost to some visitors or to search (no description, an unlabelled
     field, an image without alt text, quirks mode, a slow or heavy page);
   - low: advice whose absence costs little (title length, minification, social links).
2. The score starts at 100 and each failed check takes off its importance's weight
   (REPORTS_IMPORTANCE_WEIGHTS, default high 25, medium 5, low 1), down to 0. Passed checks
   add nothing, so a page is not rewarded for checks that cannot fail on it (a site with
   HTTPS passes a dozen of them), and ten medium problems cost the same on any page.
3. Two rules keep the rating honest whatever the weights are set to:
   - a page that fails no high or medium check scores at least the "decent" floor, so
     failing only low-importance checks can never rate it bad;
   - a page failing a high-importance check scores below the "good" floor, since one
     such failure (a noindexed page, say) undoes everything else.
4. The rating is "good" at or above the good floor (80), "decent" at or above the decent
   floor (50), else "bad" (REPORTS_RATING_BANDS). So with the defaults a good page fails
   at most three medium checks and a few low ones, and a bad one fails a high check and
   several medium ones, or more than ten medium ones.
"""

import math


def score(results: dict[str, dict[str, dict]], weights: dict[str, float], bands: dict[str, float]) -> int:
    """The page's score from its check results (see the module docstring)."""
    penalty = 0.0
    failed = set()
    for checks in results.values():
        for result in checks.values():
            if not result["passed"]:
                penalty += weights[result["importance"]]
                failed.add(result["importance"])
    value = max(0, math.floor(100 - penalty + 0.5))
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
