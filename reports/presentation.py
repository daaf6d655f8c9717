"""Turn a report's stored results into something a person reads: labelled checks with their evidence.

Used by the report page and the admin. Stored results are a JSON object
(category → check → {passed, importance, value, errors}); PostgreSQL's jsonb does
not keep key order, so the order shown here is set explicitly.
"""

from dataclasses import dataclass

CATEGORY_ORDER = ("seo", "performance", "security", "accessibility", "miscellaneous")
CATEGORY_LABELS = {
    "seo": "SEO",
    "performance": "Performance",
    "security": "Security",
    "accessibility": "Accessibility",
    "miscellaneous": "Miscellaneous",
}
IMPORTANCE_ORDER = {"high": 0, "medium": 1, "low": 2}
# Labels that capitalising the key would get wrong.
CHECK_LABELS = {
    "404_page": "404 page",
    "htst": "HSTS header",
    "http2": "HTTP/2",
    "https_encryption": "HTTPS encryption",
    "seo_friendly_url": "SEO-friendly URL",
    "link_url_readability": "Link URL readability",
    "dom_size": "DOM size",
    "llms_txt": "llms.txt",
    "robots": "robots.txt",
    "text_html_ratio": "Text to HTML ratio",
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
}
MAX_ITEMS = 50  # evidence lists (e.g. every image without alt) are cut here


@dataclass(frozen=True)
class CheckView:
    key: str
    label: str
    passed: bool
    importance: str
    evidence: list[str]
    problems: list[str]


@dataclass(frozen=True)
class CategoryView:
    key: str
    label: str
    checks: list[CheckView]

    @property
    def passed(self) -> int:
        return sum(check.passed for check in self.checks)

    @property
    def total(self) -> int:
        return len(self.checks)


def humanize(key: str) -> str:
    return CHECK_LABELS.get(key) or key.replace("_", " ").strip().capitalize()


def _text(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{humanize(str(key)).lower()} {_text(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_text(item) for item in value)
    return str(value)


def evidence_lines(value: object) -> list[str]:
    """A check's value as lines of text: one per list item or dict entry."""
    if value is None or value == "" or value == [] or value == {}:
        return []
    if isinstance(value, list | tuple):
        lines = [_text(item) for item in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            lines.append(f"… and {len(value) - MAX_ITEMS} more")
        return lines
    if isinstance(value, dict):
        return [f"{humanize(str(key))}: {_text(item)}" for key, item in list(value.items())[:MAX_ITEMS]]
    return [_text(value)]


def problem_lines(errors: object) -> list[str]:
    """A check's errors ({kind: detail}) as sentences such as "Length: min 1, max 60"."""
    if not errors:
        return []
    if isinstance(errors, dict):
        return [
            humanize(str(kind)) + (f": {_text(detail)}" if detail not in (None, "", [], {}) else "")
            for kind, detail in errors.items()
        ]
    return evidence_lines(errors)


def categories(results: object) -> list[CategoryView]:
    """The report's checks by category, most important and failed first within each."""
    if not isinstance(results, dict):
        return []
    keys = [key for key in CATEGORY_ORDER if key in results] + sorted(set(results) - set(CATEGORY_ORDER))
    views = []
    for key in keys:
        checks = results[key]
        if not isinstance(checks, dict):
            continue
        check_views = [
            CheckView(
                key=check_key,
                label=humanize(check_key),
                passed=bool(check.get("passed")),
                importance=str(check.get("importance", "")),
                evidence=evidence_lines(check.get("value")),
                problems=problem_lines(check.get("errors")),
            )
            for check_key, check in checks.items()
            if isinstance(check, dict)
        ]
        check_views.sort(key=lambda check: (check.passed, IMPORTANCE_ORDER.get(check.importance, 3), check.label))
        views.append(CategoryView(key=key, label=CATEGORY_LABELS.get(key, humanize(key)), checks=check_views))
    return views
