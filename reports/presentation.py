"""Turn a report's stored results into something a person reads: labelled checks with their evidence.

Used by the report page and the admin. Stored results are a JSON object
(category → check → {passed, importance, value, errors}); PostgreSQL's jsonb does
not keep key order, so the order shown here is set explicitly.

Numbers get their unit from the check they belong to (`CHECK_UNITS`) or, inside a
value, from the field they are in (`FIELD_UNITS`): bytes are shown in kB. A
check or field without an entry is shown as it is stored.
"""

from dataclasses import dataclass

from reports.advice import Advice, advice_for
from reports.analysis import config, scoring

CATEGORY_ORDER = ("seo", "performance", "security", "accessibility", "miscellaneous")
CATEGORY_LABELS = {
    "seo": "SEO",
    "performance": "Performance",
    "security": "Security",
    "accessibility": "Accessibility",
    "miscellaneous": "Miscellaneous",
}
IMPORTANCE_ORDER = {"high": 0, "medium": 1, "low": 2}
# Labels of check ids, fields and error kinds that capitalising the key would get wrong.
LABELS = {
    "404_page": "404 page",
    "hsts": "HSTS",
    "htst": "HSTS",
    "http2": "HTTP/2",
    "https_encryption": "HTTPS encryption",
    "seo_friendly_url": "SEO-friendly URL",
    "link_url_readability": "Link URL readability",
    "dom_size": "DOM size",
    "llms_txt": "llms.txt",
    "robots": "robots.txt",
    "text_html_ratio": "Text to HTML ratio",
    "noindex": "Noindex (meta robots)",
    "noindex_header": "Noindex header (X-Robots-Tag)",
    "in_page_links": "In-page links",
    "unsafe_cross_origin_links": "Unsafe cross-origin links",
    "meta_viewport": "Meta viewport",
    "plaintext_email": "Plain-text e-mail addresses",
    "deprecated_html_tags": "Deprecated HTML tags",
    "inline_css": "Inline CSS",
    "structured_data": "Structured data",
    "http_requests": "HTTP requests",
    "mixed_passive_content": "Mixed passive content (images, media)",
    "image_keywords": "Image alt texts",
    "content_security_policy": "Content Security Policy",
    "javascript": "JavaScript",
    "defer_javascript": "Deferred JavaScript",
    "image_dimensions": "Image width and height",
    "legacy_doctype": "Legacy doctype",
    "link_name": "Link names",
    "button_name": "Button names",
    "form_labels": "Form labels",
    "color_contrast": "Colour contrast",
    # Fields inside values and errors.
    "url": "URL",
    "json_ld": "JSON-LD",
    "open_graph": "Open Graph",
    "twitter": "Twitter cards",
    "without_alt": "Without alt text",
    "not_modern": "Not WebP/AVIF/SVG",
    "ttfb_ms": "Time to first byte",
    "total_ms": "Total time",
    "invalid_json_ld_blocks": "Invalid JSON-LD blocks",
    "bytes": "Total size",
    "gzip_saving": "Saved by gzip",
    # Error kinds.
    "too_slow": "Too slow",
    "too_much": "Too much",
    "too_large": "Too large",
    "length": "Wrong length",
    "not_optimal": "Not the optimal length",
    "bad_format": "Badly formed",
    "not_https": "Not served over HTTPS",
    "render_blocking": "Render-blocking scripts",
    "unminified": "Not minified",
    "missing_noopener": 'Links without rel="noopener"',
    "insecure_resources": "Insecure (http://) resources",
    "revealed": "Software versions revealed",
    "internal_nofollow": "Internal links marked nofollow",
    "generic": "Generic link texts",
    "empty": "Links without text",
    "unfriendly_urls": "Unfriendly URLs",
    "wrong_status": "Wrong HTTP status",
    "disallowed": "Disallowed by robots.txt",
    "failed": "Could not be checked",
    "duplicate": "Same as the title",
    "too_many_params": "Too many query parameters",
    "too_long": "Too long",
    "uppercase": "Upper-case letters",
    "bad_characters": "Unfriendly characters",
    "invalid_bytes": "Bytes invalid in the encoding",
}

BYTES, MILLISECONDS, PERCENT = "bytes", "ms", "%"
# The unit of a check's numbers (its value and the limits in its errors).
CHECK_UNITS = {
    "load_time": MILLISECONDS,
    "largest_contentful_paint": MILLISECONDS,
    "total_blocking_time": MILLISECONDS,
    "first_contentful_paint": MILLISECONDS,
    "page_size": BYTES,
    "text_compression": BYTES,
    "dom_size": "node",
    "http_requests": "request",
    "in_page_links": "link",
    "link_text": "link",
    "link_url_readability": "link",
    "unsafe_cross_origin_links": "link",
    "content_length": "word",
    "text_html_ratio": PERCENT,
    "title": "character",
    "title_optimal_length": "character",
    "meta_description_optimal_length": "character",
    "image_keywords": "image",
    "image_format": "image",
    "defer_javascript": "script",
    "minification": "file",
    "inline_css": "tag",
    "image_dimensions": "image",
    "link_name": "link",
    "button_name": "button",
    "form_labels": "field",
}
# The unit of a number inside a value, by the field it is in; it wins over the check's unit.
FIELD_UNITS = {
    "bytes": BYTES,
    "size": BYTES,
    "transferred": BYTES,
    "gzip_saving": BYTES,
    "ttfb_ms": MILLISECONDS,
    "total_ms": MILLISECONDS,
    "too_many_params": "parameter",
    "too_long": "character",
    "status": None,
    "offset": None,
    "score": None,
}
LIMIT_KEYS = {"min", "max", "current"}
MAX_ITEMS = 50  # evidence lists (e.g. every image without alt) are cut here


@dataclass(frozen=True)
class CheckView:
    key: str
    label: str
    passed: bool
    importance: str
    evidence: list[str]
    problems: list[str]
    advice: Advice | None = None


@dataclass(frozen=True)
class CategoryView:
    key: str
    label: str
    checks: list[CheckView]

    # The category's 0-100 score and its rating, when the report has one.
    score: int | None = None
    rating: str = ""

    @property
    def passed(self) -> int:
        return sum(check.passed for check in self.checks)

    @property
    def failed_checks(self) -> list[CheckView]:
        return [check for check in self.checks if not check.passed]

    @property
    def passed_checks(self) -> list[CheckView]:
        return [check for check in self.checks if check.passed]

    @property
    def total(self) -> int:
        return len(self.checks)


def humanize(key: str) -> str:
    return LABELS.get(key) or key.replace("_", " ").strip().capitalize()


def with_unit(number: float, unit: str | None) -> str:
    """`480123, "bytes"` → "480 kB"; `1, "node"` → "1 node"; `1250, "ms"` → "1,250 ms"."""
    if unit is None:
        return f"{number:,}" if isinstance(number, int) else str(number)
    if unit == BYTES:
        kilobytes = number / 1000
        return f"{kilobytes:,.0f} kB" if kilobytes >= 10 or kilobytes == 0 else f"{kilobytes:.1f} kB"
    if unit == MILLISECONDS:
        return f"{number:,} ms"
    if unit == PERCENT:
        return f"{number} %"
    return f"{number:,} {unit}{'' if number == 1 else 's'}"


def _is_limit(value: object) -> bool:
    return isinstance(value, dict) and bool(value) and set(value) <= LIMIT_KEYS and "current" in value


def _limit_text(detail: dict, unit: str | None) -> str:
    """{"max": 2000, "current": 5234} in ms → "5,234 ms (should be at most 2,000 ms)"."""
    low, high = detail.get("min"), detail.get("max")
    if low is not None and high is not None:
        bound = f"between {with_unit(low, None)} and {with_unit(high, unit)}"
    elif high is not None:
        bound = f"at most {with_unit(high, unit)}"
    else:
        bound = f"at least {with_unit(low, unit)}"
    return f"{with_unit(detail['current'], unit)} (should be {bound})"


def _text(value: object, unit: str | None = None) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return with_unit(value, unit)
    if _is_limit(value):
        return _limit_text(value, unit)
    if isinstance(value, dict):
        if not value:
            return "none"
        return "; ".join(
            humanize(str(key)).lower() + ("" if item is None else f": {_text(item, FIELD_UNITS.get(key, unit))}")
            for key, item in value.items()
        )
    if isinstance(value, list | tuple):
        return ", ".join(_text(item, unit) for item in value) if value else "none"
    return str(value)


def evidence_lines(value: object, unit: str | None = None) -> list[str]:
    """A check's value as lines of text: one per list item or dict entry."""
    if value is None or value == "" or value == [] or value == {}:
        return []
    if isinstance(value, list | tuple):
        lines = [_text(item, unit) for item in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            lines.append(f"… and {len(value) - MAX_ITEMS} more")
        return lines
    if isinstance(value, dict) and not _is_limit(value):
        return [
            f"{humanize(str(key))}: {_text(item, FIELD_UNITS.get(key, unit))}"
            for key, item in list(value.items())[:MAX_ITEMS]
        ]
    return [_text(value, unit)]


def problem_lines(errors: object, unit: str | None = None) -> list[str]:
    """A check's errors ({kind: detail}) as sentences such as "Too slow: 5,234 ms (should be at most 2,000 ms)"."""
    if not errors:
        return []
    if isinstance(errors, dict):
        return [
            humanize(str(kind))
            + (f": {_text(detail, FIELD_UNITS.get(kind, unit))}" if detail not in (None, "", [], {}) else "")
            for kind, detail in errors.items()
        ]
    return evidence_lines(errors, unit)


def check_view(key: str, check: dict) -> CheckView:
    unit = CHECK_UNITS.get(key)
    return CheckView(
        key=key,
        label=humanize(key),
        passed=bool(check.get("passed")),
        importance=str(check.get("importance", "")),
        evidence=evidence_lines(check.get("value"), unit),
        problems=problem_lines(check.get("errors"), unit),
        advice=advice_for(key),
    )


IMPORTANCE_LABELS = {"high": "High", "medium": "Medium", "low": "Low"}


def category_gauges(scores: dict[str, int | None]) -> list[dict]:
    """One gauge per category that has a score: key, label, score and rating, in the report's order."""
    bands = config.rating_bands()
    return [
        {
            "key": key,
            "label": CATEGORY_LABELS[key],
            "score": scores[key],
            "rating": scoring.rating(scores[key], bands),
        }
        for key in CATEGORY_ORDER
        if scores.get(key) is not None
    ]


def filtered(views: list[CategoryView], category: str = "", importance: str = "") -> list[CategoryView]:
    """Only the category and the checks of the importance asked for ("" keeps all)."""
    return [
        CategoryView(
            key=view.key,
            label=view.label,
            checks=[check for check in view.checks if not importance or check.importance == importance],
            score=view.score,
            rating=view.rating,
        )
        for view in views
        if not category or view.key == category
    ]


def categories(results: object, scores: dict[str, int | None] | None = None) -> list[CategoryView]:
    """The report's checks by category, most important and failed first within each."""
    if not isinstance(results, dict):
        return []
    scores = scores or {}
    bands = config.rating_bands()
    keys = [key for key in CATEGORY_ORDER if key in results] + sorted(set(results) - set(CATEGORY_ORDER))
    views = []
    for key in keys:
        checks = results[key]
        if not isinstance(checks, dict):
            continue
        check_views = [check_view(check_key, check) for check_key, check in checks.items() if isinstance(check, dict)]
        check_views.sort(key=lambda check: (check.passed, IMPORTANCE_ORDER.get(check.importance, 3), check.label))
        score = scores.get(key)
        views.append(
            CategoryView(
                key=key,
                label=CATEGORY_LABELS.get(key, humanize(key)),
                checks=check_views,
                score=score,
                rating="" if score is None else scoring.rating(score, bands),
            )
        )
    return views


METRIC_LABELS = {
    "fcp": "First Contentful Paint",
    "lcp": "Largest Contentful Paint",
    "tbt": "Total Blocking Time",
    "cls": "Cumulative Layout Shift",
}
METRIC_RATINGS = {"good": "Good", "needs-improvement": "Needs improvement", "poor": "Poor"}


def lab_metrics(metrics: dict | None) -> dict | None:
    """The lab metrics of a rendered analysis as the report page lists them (LCP first, as PageSpeed
    Insights does), each with its value, Lighthouse's rating and thresholds; None when not rendered."""
    if not metrics:
        return None
    from reports.analysis.lab import THRESHOLDS

    rows = []
    for key in ("lcp", "tbt", "cls", "fcp"):
        measured = metrics.get(key) or {}
        good, poor = THRESHOLDS[key]
        unit = measured.get("unit", "")
        value = measured.get("value")
        if value is not None and key != "cls":
            shown = f"{value / 1000:.1f} s" if value >= 1000 or key in ("fcp", "lcp") else f"{value} ms"
        else:
            shown = "not measured" if value is None else f"{value:.3f}"
        limits = (
            f"good ≤ {good / 1000:g} s, poor > {poor / 1000:g} s"
            if key in ("fcp", "lcp")
            else (f"good ≤ {good} ms, poor > {poor} ms" if unit == "ms" else f"good ≤ {good}, poor > {poor}")
        )
        rows.append(
            {
                "key": key,
                "label": METRIC_LABELS[key],
                "value": shown,
                "rating": measured.get("rating") or "none",
                "rating_label": METRIC_RATINGS.get(measured.get("rating"), "Not measured"),
                "thresholds": limits,
            }
        )
    return {"rows": rows, "profile": metrics.get("profile") or {}}
