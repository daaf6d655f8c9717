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
5. Each category (seo, performance, security, accessibility, miscellaneous) has a score of its
   own. Performance, security and miscellaneous are made by the same rules from that category's
   checks alone, so the weights mean the same thing in a category as overall.
6. SEO and accessibility are scored the way Lighthouse 12 scores its categories of those names,
   so that the two numbers people compare most mean what they mean there (issue 21): the
   weighted share of passed audits among those that apply to the page. A check that tests what a
   Lighthouse audit of the category tests carries that audit's weight (`LIGHTHOUSE_AUDITS`), even
   when it is listed in another category (Lighthouse counts the title, image alt text, the page's
   language and frame titles as accessibility rules). A check with nothing to test on the page
   (no buttons, no images, no frames, …) is left out, as Lighthouse leaves out an audit that does
   not apply. The category's other checks weigh by importance (`OTHER_CHECK_WEIGHTS`): high as
   the category's heaviest Lighthouse audit, medium as its usual one, low not at all (advice, as
   Lighthouse's manual audits). The two rules of 3 hold here too, over the checks counted.
"""

import math
from collections.abc import Callable


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


def category_scores(
    results: dict[str, dict[str, dict]], weights: dict[str, float], bands: dict[str, float]
) -> dict[str, int]:
    """Each category's score: SEO and accessibility as Lighthouse scores them (`lighthouse_score`),
    the others by the rules of `score()` applied to that category's checks alone."""
    return {
        category: lighthouse_score(category, results, bands)
        if category in LIGHTHOUSE_AUDITS
        else score({category: checks}, weights, bands)
        for category, checks in results.items()
    }


# The audits of Lighthouse 12.8's SEO and accessibility categories that our checks test, with the
# weights of its default configuration (core/config/default-config.js, v12.8.2): (audit, weight,
# the checks that answer it as (category, key); the audit passes when all of them pass).
# Lighthouse weighs its accessibility audits by axe-core's impact (critical 10, serious 7,
# moderate 3), and its SEO audits 1 each, but for is-crawlable, which must sink the category alone.
LIGHTHOUSE_AUDITS: dict[str, tuple[tuple[str, float, tuple[tuple[str, str], ...]], ...]] = {
    "seo": (
        ("is-crawlable", 93 / 23, (("seo", "robots"), ("seo", "noindex"), ("seo", "noindex_header"))),
        ("document-title", 1, (("seo", "title"),)),
        ("meta-description", 1, (("seo", "meta_description"),)),
        ("link-text", 1, (("seo", "link_text"),)),
        ("crawlable-anchors", 1, (("seo", "crawlable_links"),)),
        ("image-alt", 1, (("seo", "image_keywords"),)),
        ("hreflang", 1, (("seo", "hreflang"),)),
        ("canonical", 1, (("seo", "canonical_tag"),)),
    ),
    "accessibility": (
        # button-name and input-button-name (both 10): our check names <button>s and input buttons.
        ("button-name", 10, (("accessibility", "button_name"),)),
        ("color-contrast", 7, (("accessibility", "color_contrast"),)),
        ("document-title", 7, (("seo", "title"),)),
        ("frame-title", 7, (("miscellaneous", "iframes"),)),
        ("heading-order", 3, (("accessibility", "heading_order"),)),
        ("html-has-lang", 7, (("seo", "language"),)),
        ("html-lang-valid", 7, (("seo", "language"),)),
        ("image-alt", 10, (("seo", "image_keywords"),)),
        ("label", 7, (("accessibility", "form_labels"),)),
        ("link-name", 7, (("accessibility", "link_name"),)),
        ("meta-viewport", 10, (("accessibility", "zoomable"),)),
        ("target-size", 7, (("accessibility", "tap_targets"),)),
    ),
}
# The category's checks that share no Lighthouse audit, by importance.
OTHER_CHECK_WEIGHTS = {
    "seo": {"high": 93 / 23, "medium": 1, "low": 0},
    "accessibility": {"high": 10, "medium": 7, "low": 0},
}


def _count(key: str) -> Callable[[object], bool]:
    return lambda value: not isinstance(value, dict) or not isinstance(value.get(key), int) or value[key] > 0


# When a check has something to test on the page, read from the value it stored (results stored
# before this rule existed have the same values); a check not listed here always applies.
APPLIES: dict[str, Callable[[object], bool]] = {
    "link_name": _count("links"),
    "button_name": _count("buttons"),
    "form_labels": _count("fields"),
    "image_keywords": _count("images"),
    "tap_targets": _count("targets"),
    "color_contrast": _count("text_elements"),
    "image_aspect_ratio": _count("images"),
    "iframes": lambda value: value is None or bool(value),  # the frames' URLs
    "heading_order": lambda value: value is None or bool(value),  # the headings' levels
    "zoomable": lambda value: value is not None,  # the viewport's content, None without one
}


def _applies(key: str, check: dict) -> bool:
    if key == "canonical_tag":  # no canonical link: nothing to judge (Lighthouse: not applicable)
        return not (check["passed"] and check.get("value") is None)
    return APPLIES.get(key, lambda value: True)(check.get("value"))


def _audit_verdict(audit: str, checks: list[tuple[str, dict]]) -> bool | None:
    """Whether the audit passes, by the checks that answer it; None when it does not apply."""
    if audit in ("html-has-lang", "html-lang-valid"):
        (_, language), *_ = checks
        missing = "missing" in (language.get("errors") or {})
        if audit == "html-has-lang":
            return not missing
        return None if missing else language["passed"]
    applying = [check for key, check in checks if _applies(key, check)]
    return all(check["passed"] for check in applying) if applying else None


def lighthouse_score(category: str, results: dict[str, dict[str, dict]], bands: dict[str, float]) -> int:
    """The category's score as Lighthouse makes its own (rule 6 above): 100 x the weighted share of
    passed audits among those that apply, with the floor and cap of `score()`."""
    earned = total = 0.0
    failed = set()
    shared = set()
    for audit, weight, keys in LIGHTHOUSE_AUDITS[category]:
        shared.update(keys)
        checks = [(key, check) for name, key in keys if _well_formed(check := results.get(name, {}).get(key))]
        verdict = _audit_verdict(audit, checks) if checks else None
        if verdict is None:
            continue
        earned += weight * verdict
        total += weight
        failed.update(check["importance"] for _, check in checks if not check["passed"])
    for key, check in results.get(category, {}).items():
        if (category, key) in shared or not _well_formed(check) or not _applies(key, check):
            continue
        weight = OTHER_CHECK_WEIGHTS[category].get(check["importance"], 0)
        earned += weight * check["passed"]
        total += weight
        if not check["passed"]:
            failed.add(check["importance"])
    value = math.floor(100 * earned / total + 0.5) if total else 100
    if "high" in failed:
        value = min(value, math.ceil(bands["good"]) - 1)
    elif "medium" not in failed:
        value = max(value, math.ceil(bands["decent"]))
    return value


def _well_formed(check: object) -> bool:
    return isinstance(check, dict) and isinstance(check.get("passed"), bool) and "importance" in check


def rating(value: int, bands: dict[str, float]) -> str:
    """ "good" at or above the good floor, "decent" at or above the decent floor, else "bad"."""
    if value >= bands["good"]:
        return "good"
    if value >= bands["decent"]:
        return "decent"
    return "bad"
