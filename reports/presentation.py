"""Turn a report's stored results into something a person reads: labelled checks with their evidence.

Used by the report page, the site audit page and the admin. Stored results are a JSON object
(category → check → {passed, importance, value, errors}); PostgreSQL's jsonb does
not keep key order, so the order shown here is set explicitly.

The stored results stay English and unchanged (the API serves them as they are); everything a
reader sees is built here, in the active language, from the stored keys and numbers: every check
id, field and error kind has an explicit, lazily translated label, and the English sentences a
check stores (a probe's error, a CSP weakness) are translated by `reports.stored_messages`.

Numbers get their unit from the check they belong to (`CHECK_UNITS`) or, inside a
value, from the field they are in (`FIELD_UNITS`): bytes are shown in kB. A
check or field without an entry is shown as it is stored, in the reader's number format.
"""

from dataclasses import dataclass

from django.utils.formats import number_format
from django.utils.text import capfirst
from django.utils.translation import gettext, ngettext, pgettext
from django.utils.translation import gettext_lazy as _

from reports import stored_messages
from reports.advice import Advice, advice_for
from reports.analysis import config, scoring

CATEGORY_ORDER = ("seo", "performance", "security", "accessibility", "miscellaneous")
CATEGORY_LABELS = {
    "seo": _("SEO"),
    "performance": _("Performance"),
    "security": _("Security"),
    "accessibility": _("Accessibility"),
    "miscellaneous": _("Miscellaneous"),
}
IMPORTANCE_ORDER = {"high": 0, "medium": 1, "low": 2}
IMPORTANCE_LABELS = {"high": _("High"), "medium": _("Medium"), "low": _("Low")}

# The name of every check of the engine (tests/reports/test_check_translations.py holds them to it).
CHECK_LABELS = {
    # SEO
    "title": _("Title"),
    "title_optimal_length": _("Title length"),
    "meta_description": _("Meta description"),
    "meta_description_optimal_length": _("Meta description length"),
    "headings": _("Headings"),
    "content_keywords": _("Title keywords in the text"),
    "keyword_consistency": _("Keyword consistency"),
    "image_keywords": _("Image alt texts"),
    "seo_friendly_url": _("SEO-friendly URL"),
    "canonical_tag": _("Canonical URL"),
    "hreflang": _("Hreflang annotations"),
    "404_page": _("404 page"),
    "robots": "robots.txt",
    "noindex": _("Noindex (meta robots)"),
    "noindex_header": _("Noindex header (X-Robots-Tag)"),
    "in_page_links": _("In-page links"),
    "nofollow_links": _("Nofollow links"),
    "link_text": _("Link texts"),
    "crawlable_links": _("Crawlable links"),
    "link_url_readability": _("Link URL readability"),
    "language": _("Page language"),
    "favicon": _("Favicon"),
    # Performance
    "text_compression": _("Text compression"),
    "load_time": _("Load time"),
    "page_size": _("Page size"),
    "http_requests": _("HTTP requests"),
    "image_format": _("Image formats"),
    "image_dimensions": _("Image width and height"),
    "defer_javascript": _("Deferred JavaScript"),
    "minification": _("Minification"),
    "dom_size": _("DOM size"),
    "doctype": _("Doctype"),
    "legacy_doctype": _("Legacy doctype"),
    "http2": "HTTP/2",
    "largest_contentful_paint": _("Largest Contentful Paint (LCP)"),
    "total_blocking_time": _("Total Blocking Time (TBT)"),
    "cumulative_layout_shift": _("Cumulative Layout Shift (CLS)"),
    "first_contentful_paint": _("First Contentful Paint (FCP)"),
    # Security
    "https_encryption": _("HTTPS encryption"),
    "mixed_content": _("Mixed content"),
    "mixed_passive_content": _("Mixed passive content (images, media)"),
    "server_signature": _("Server signature"),
    "unsafe_cross_origin_links": _("Unsafe cross-origin links"),
    "hsts": _("HSTS"),
    "htst": _("HSTS"),  # the misspelt key of older reports
    "plaintext_email": _("Plain-text e-mail addresses"),
    "content_security_policy": _("Content Security Policy"),
    # Accessibility
    "link_name": _("Link names"),
    "button_name": _("Button names"),
    "form_labels": _("Form labels"),
    "zoomable": _("Zooming allowed"),
    "heading_order": _("Heading order"),
    "color_contrast": _("Colour contrast"),
    "tap_targets": _("Tap targets"),
    "font_size": _("Font size"),
    "image_aspect_ratio": _("Image aspect ratio"),
    # Miscellaneous
    "structured_data": _("Structured data"),
    "meta_viewport": _("Meta viewport"),
    "charset": _("Character encoding"),
    "sitemap": _("Sitemap"),
    "social": _("Social profiles"),
    "content_length": _("Amount of text"),
    "text_html_ratio": _("Text to HTML ratio"),
    "inline_css": _("Inline CSS"),
    "deprecated_html_tags": _("Deprecated HTML tags"),
    "llms_txt": "llms.txt",
    "flash_content": _("Flash content"),
    "iframes": _("Iframe titles"),
}

# Error kinds, as a check's `errors` keys them. Written as they read after a colon (lower case);
# `capfirst` starts a line with a capital.
ERROR_LABELS = {
    "missing": _("missing"),
    "too_many": _("too many"),
    "too_few": _("too few"),
    "too_low": _("too low"),
    "too_slow": _("too slow"),
    "too_much": _("too much"),
    "too_large": _("too large"),
    "length": _("wrong length"),
    "not_optimal": _("not the optimal length"),
    "bad_format": _("badly formed"),
    "points_to_root": _("points to the home page"),
    "failed": _("could not be checked"),
    "wrong_status": _("wrong HTTP status"),
    "disallowed": _("disallowed by robots.txt"),
    "noindex": _("kept out of search results"),
    "internal_nofollow": _("internal links marked nofollow"),
    "generic": _("generic link texts"),
    "uncrawlable": _("links crawlers cannot follow"),
    "unfriendly_urls": _("unfriendly URLs"),
    "render_blocking": _("render-blocking scripts"),
    "unminified": _("not minified"),
    "quirks_mode": _("selects quirks mode"),
    "limited_quirks_mode": _("selects limited-quirks mode"),
    "legacy": _("legacy doctype"),
    "not_https": _("not served over HTTPS"),
    "not_supported": _("not supported"),
    "insecure_resources": _("insecure (http://) resources"),
    "revealed": _("software versions revealed"),
    "missing_noopener": _('links without rel="noopener"'),
    "found": _("found"),
    "weak": _("weaknesses"),
    "blocks_zoom": _("blocks zooming"),
    "skipped_levels": _("skipped heading levels"),
    "empty": _("empty tags"),
    "unknown": _("unknown encoding"),
    "invalid_bytes": _("bytes invalid in the encoding"),
    "missing_title": _("frames without a title"),
    # Inside a URL's `bad_format` (seo.url_problems).
    "bad_characters": _("unfriendly characters"),
    "too_many_params": _("too many query parameters"),
    "too_long": _("too long"),
    "duplicate": _("same as the title"),
}

# Fields of values (and of the items in errors), as they read after a colon.
FIELD_LABELS = {
    "url": "URL",
    "href": _("address"),
    "hreflang": _("language"),
    "status": _("HTTP status"),
    "keyword": _("keyword"),
    "count": _("count"),
    "images": _("images"),
    "without_alt": _("without alt text"),
    "total": _("total"),
    "internal": _("internal"),
    "external": _("external"),
    "internals": _("internal links"),
    "externals": _("external links"),
    "links": _("links"),
    "uncrawlable": _("not crawlable"),
    "encoding": _("encoding"),
    "transferred": _("transferred"),
    "size": _("size"),
    "gzip_saving": _("saved by gzip"),
    "stylesheets": _("stylesheets"),
    "scripts": _("scripts"),
    "media": _("media"),
    "iframes": _("frames"),
    "bytes": _("size"),
    "failed": _("failed"),
    "error": _("error"),
    "not_modern": _("not WebP/AVIF/SVG"),
    "unsized": _("without width and height"),
    "checked": _("checked"),
    "saving": _("saving"),
    "doctype": _("doctype"),
    "mode": _("rendering mode"),
    "value": _("measured"),
    "unit": _("unit"),
    "rating": _("rating"),
    "score": _("score"),
    "unnamed": _("without a name"),
    "buttons": _("buttons"),
    "fields": _("fields"),
    "unlabelled": _("without a label"),
    "field": _("field"),
    "id": _("identifier"),
    "from": _("from"),
    "to": _("to"),
    "heading": _("heading"),
    "text_elements": _("text elements"),
    "targets": _("targets"),
    "failing": _("failing"),
    "characters": _("characters"),
    "legible_share": _("legible text"),
    "open_graph": _("Open Graph tags"),
    "twitter": _("Twitter cards"),
    "json_ld": _("JSON-LD types"),
    "invalid_json_ld_blocks": _("invalid JSON-LD blocks"),
    "declared": _("declared"),
    "declared_in": _("declared in"),
    "used": _("used"),
    "offset": _("at byte"),
    "tags": _("tags"),
    "text": _("text"),
    "ratio": _("contrast"),
    "required": _("required"),
    "color": _("text colour"),
    "background": _("background"),
    "target": _("target"),
    "displayed": _("displayed"),
    "natural": _("file"),
    "ttfb_ms": _("time to first byte"),
    "total_ms": _("total time"),
}
# Stored words that are values, not names, by the field they are in.
VALUE_LABELS = {
    "mode": {"no-quirks": _("standards"), "limited-quirks": _("limited quirks"), "quirks": _("quirks")},
    "rating": {"good": _("good"), "needs-improvement": _("needs improvement"), "poor": _("poor")},
    "declared_in": {"header": _("Content-Type header"), "meta": _("<meta> tag"), "bom": _("byte order mark")},
}
# Where a field means something more precise in one check than in general.
CHECK_FIELD_LABELS = {("http_requests", "bytes"): _("total size")}
# Where an error kind means something more precise in one check than in general.
CHECK_ERROR_LABELS = {
    ("title", "missing"): _("no title"),
    ("title", "too_many"): _("several titles"),
    ("meta_description", "missing"): _("no description"),
    ("meta_description", "too_many"): _("several descriptions"),
    ("headings", "missing"): _("no <h1> heading"),
    ("content_keywords", "missing"): _("title words missing from the text"),
    ("keyword_consistency", "missing"): _("frequent words missing from the title, description and headings"),
    ("image_keywords", "missing"): _("images without an alt attribute"),
    ("canonical_tag", "too_many"): _("several canonical URLs"),
    ("language", "missing"): _("no lang attribute"),
    ("favicon", "missing"): _("no favicon"),
    ("text_compression", "missing"): _("not compressed"),
    ("in_page_links", "too_many"): _("too many links"),
    ("image_dimensions", "missing"): _("images without width and height"),
    ("doctype", "missing"): _("no doctype"),
    ("hsts", "missing"): _("no Strict-Transport-Security header"),
    ("htst", "missing"): _("no Strict-Transport-Security header"),
    ("plaintext_email", "found"): _("addresses found"),
    ("link_name", "missing"): _("links without a name"),
    ("button_name", "missing"): _("buttons without a name"),
    ("form_labels", "missing"): _("fields without a label"),
    ("color_contrast", "failed"): _("text with too little contrast"),
    ("tap_targets", "failed"): _("targets too small and too close together"),
    ("font_size", "failed"): _("text too small to read"),
    ("image_aspect_ratio", "failed"): _("distorted images"),
    ("image_format", "bad_format"): _("images in an older format"),
    ("meta_viewport", "missing"): _("no viewport tag"),
    ("charset", "missing"): _("no declared encoding"),
    ("sitemap", "missing"): _("no sitemap found"),
    ("social", "missing"): _("no link to a social profile"),
    ("deprecated_html_tags", "found"): _("obsolete tags found"),
    ("flash_content", "found"): _("Flash objects found"),
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
    "saving": BYTES,
    "ttfb_ms": MILLISECONDS,
    "total_ms": MILLISECONDS,
    "legible_share": PERCENT,
    "too_many_params": "parameter",
    "too_long": "character",
    "status": None,
    "offset": None,
    "score": None,
    "ratio": None,
    "required": None,
}
LIMIT_KEYS = {"min", "max", "current"}
MAX_ITEMS = 50  # evidence lists (e.g. every image without alt) are cut here


def counted(number: float, unit: str) -> str:
    """`3, "node"` → "3 nodes", in the reader's language and number format."""
    shown = number_format(number, force_grouping=True)
    count = number if isinstance(number, int) else 2  # a fraction of a unit reads as a plural
    if unit == "node":
        return ngettext("%(count)s node", "%(count)s nodes", count) % {"count": shown}
    if unit == "request":
        return ngettext("%(count)s request", "%(count)s requests", count) % {"count": shown}
    if unit == "link":
        return ngettext("%(count)s link", "%(count)s links", count) % {"count": shown}
    if unit == "word":
        return ngettext("%(count)s word", "%(count)s words", count) % {"count": shown}
    if unit == "character":
        return ngettext("%(count)s character", "%(count)s characters", count) % {"count": shown}
    if unit == "image":
        return ngettext("%(count)s image", "%(count)s images", count) % {"count": shown}
    if unit == "script":
        return ngettext("%(count)s script", "%(count)s scripts", count) % {"count": shown}
    if unit == "file":
        return ngettext("%(count)s file", "%(count)s files", count) % {"count": shown}
    if unit == "tag":
        return ngettext("%(count)s tag", "%(count)s tags", count) % {"count": shown}
    if unit == "button":
        return ngettext("%(count)s button", "%(count)s buttons", count) % {"count": shown}
    if unit == "field":
        return ngettext("%(count)s field", "%(count)s fields", count) % {"count": shown}
    if unit == "parameter":
        return ngettext("%(count)s parameter", "%(count)s parameters", count) % {"count": shown}
    return f"{shown} {unit}"


@dataclass(frozen=True)
class CheckView:
    key: str
    label: str
    passed: bool
    importance: str
    evidence: list[str]
    problems: list[str]
    advice: Advice | None = None

    @property
    def importance_label(self) -> str:
        return str(IMPORTANCE_LABELS.get(self.importance, self.importance))


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


def _capitalised(key: str) -> str:
    """The label of a key nobody named (a check newer than this module): the key as words."""
    return key.replace("_", " ").strip().capitalize()


def humanize(key: str) -> str:
    """A check's name (or, for another key, its label) in the active language."""
    if key in CHECK_LABELS:
        return str(CHECK_LABELS[key])
    label = ERROR_LABELS.get(key) or FIELD_LABELS.get(key)
    return capfirst(str(label)) if label else _capitalised(key)


def field_label(key: str, check: str = "") -> str:
    """A value's field as it reads after a colon."""
    label = CHECK_FIELD_LABELS.get((check, key)) or FIELD_LABELS.get(key) or ERROR_LABELS.get(key)
    return str(label) if label else key


def _line_label(key: str, check: str) -> str:
    """A field starting a line: its label with a capital; a key nobody named (a tag's name, a social
    network's, a meta tag's) as stored."""
    named = (check, key) in CHECK_FIELD_LABELS or key in FIELD_LABELS or key in ERROR_LABELS
    return capfirst(field_label(key, check)) if named else key


def error_label(kind: str, check: str = "") -> str:
    """An error kind as it reads after a colon, in the words of its check where it has them."""
    label = CHECK_ERROR_LABELS.get((check, kind)) or ERROR_LABELS.get(kind) or FIELD_LABELS.get(kind)
    return str(label) if label else _capitalised(kind).lower()


def with_unit(number: float, unit: str | None) -> str:
    """`480123, "bytes"` → "480 kB"; `1, "node"` → "1 node"; `1250, "ms"` → "1,250 ms" (in English)."""
    if unit is None:
        return number_format(number, force_grouping=True)
    if unit == BYTES:
        kilobytes = number / 1000
        decimals = 0 if kilobytes >= 10 or kilobytes == 0 else 1
        return gettext("%(size)s kB") % {"size": number_format(kilobytes, decimals, force_grouping=True)}
    if unit == MILLISECONDS:
        return f"{number_format(number, force_grouping=True)} ms"
    if unit == PERCENT:
        return f"{number_format(number, force_grouping=True)} %"
    return counted(number, unit)


def labelled(label: str, text: str) -> str:
    """The label, a colon and the text, as the language writes them (French: a no-break space before the colon)."""
    return gettext("%(label)s: %(text)s") % {"label": label, "text": text}


def _is_limit(value: object) -> bool:
    return isinstance(value, dict) and bool(value) and set(value) <= LIMIT_KEYS and "current" in value


def _limit_text(detail: dict, unit: str | None) -> str:
    """{"max": 2000, "current": 5234} in ms → "5,234 ms (should be at most 2,000 ms)"."""
    low, high = detail.get("min"), detail.get("max")
    current = with_unit(detail["current"], unit)
    if low is not None and high is not None:
        return gettext("%(current)s (should be between %(min)s and %(max)s)") % {
            "current": current,
            "min": with_unit(low, None),
            "max": with_unit(high, unit),
        }
    if high is not None:
        return gettext("%(current)s (should be at most %(max)s)") % {"current": current, "max": with_unit(high, unit)}
    return gettext("%(current)s (should be at least %(min)s)") % {"current": current, "min": with_unit(low, unit)}


def _text(value: object, unit: str | None = None, field: str = "", check: str = "") -> str:
    if value is None:
        return gettext("none")
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if isinstance(value, int | float):
        return with_unit(value, unit)
    if _is_limit(value):
        return _limit_text(value, unit)
    if isinstance(value, dict):
        if not value:
            return gettext("none")
        return pgettext("between the fields of a value", "; ").join(
            field_label(str(key), check)
            if item is None
            else labelled(field_label(str(key), check), _text(item, FIELD_UNITS.get(key, unit), str(key), check))
            for key, item in value.items()
        )
    if isinstance(value, list | tuple):
        return ", ".join(_text(item, unit, check=check) for item in value) if value else gettext("none")
    words = VALUE_LABELS.get(field, {})
    return str(words[value]) if value in words else stored_messages.translated(str(value))


def _more(hidden: int) -> str:
    return ngettext("… and %(count)s more", "… and %(count)s more", hidden) % {
        "count": number_format(hidden, force_grouping=True)
    }


def evidence_lines(value: object, unit: str | None = None, check: str = "") -> list[str]:
    """A check's value as lines of text: one per list item or dict entry."""
    if value is None or value == "" or value == [] or value == {}:
        return []
    if isinstance(value, list | tuple):
        lines = [
            capfirst(_text(item, unit, check=check)) if isinstance(item, dict) else _text(item, unit, check=check)
            for item in value[:MAX_ITEMS]
        ]
        if len(value) > MAX_ITEMS:
            lines.append(_more(len(value) - MAX_ITEMS))
        return lines
    if isinstance(value, dict) and not _is_limit(value):
        return [
            labelled(_line_label(str(key), check), _text(item, FIELD_UNITS.get(key, unit), str(key), check))
            for key, item in list(value.items())[:MAX_ITEMS]
        ]
    return [_text(value, unit, check=check)]


def problem_lines(errors: object, unit: str | None = None, check: str = "") -> list[str]:
    """A check's errors ({kind: detail}) as sentences such as "Too slow: 5,234 ms (should be at most 2,000 ms)"."""
    if not errors:
        return []
    if isinstance(errors, dict):
        return [
            labelled(capfirst(error_label(str(kind), check)), _text(detail, FIELD_UNITS.get(kind, unit), check=check))
            if detail not in (None, "", [], {})
            else capfirst(error_label(str(kind), check))
            for kind, detail in errors.items()
        ]
    return evidence_lines(errors, unit, check)


def _shown_value(key: str, value: object) -> object:
    """What of a check's value the page shows: of a lab metric, the measure and its rating (not its
    unit, which the number carries, nor Lighthouse's 0-1 score)."""
    if key in METRIC_CHECKS.values() and isinstance(value, dict):
        return {field: value[field] for field in ("value", "rating") if field in value}
    return value


def check_view(key: str, check: dict) -> CheckView:
    unit = CHECK_UNITS.get(key)
    return CheckView(
        key=key,
        label=humanize(key),
        passed=bool(check.get("passed")),
        importance=str(check.get("importance", "")),
        evidence=evidence_lines(_shown_value(key, check.get("value")), unit, key),
        problems=problem_lines(check.get("errors"), unit, key),
        advice=advice_for(key),
    )


def category_label(key: str) -> str:
    label = CATEGORY_LABELS.get(key)
    return str(label) if label else humanize(key)


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
        # Sorted by key, not label, so that the order is the same in every language.
        check_views.sort(key=lambda check: (check.passed, IMPORTANCE_ORDER.get(check.importance, 3), check.key))
        score = scores.get(key)
        views.append(
            CategoryView(
                key=key,
                label=category_label(key),
                checks=check_views,
                score=score,
                rating="" if score is None else scoring.rating(score, bands),
            )
        )
    return views


METRIC_CHECKS = {
    "fcp": "first_contentful_paint",
    "lcp": "largest_contentful_paint",
    "tbt": "total_blocking_time",
    "cls": "cumulative_layout_shift",
}
METRIC_RATINGS = {"good": _("Good"), "needs-improvement": _("Needs improvement"), "poor": _("Poor")}


def _seconds(milliseconds: float, decimals: int | None = None) -> str:
    seconds = milliseconds / 1000
    if decimals is None and seconds == int(seconds):
        seconds = int(seconds)  # "4 s", not "4.0 s"
    return f"{number_format(seconds, decimals)} s"


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
            shown = _seconds(value, 1) if value >= 1000 or key in ("fcp", "lcp") else f"{number_format(value)} ms"
        else:
            shown = gettext("not measured") if value is None else number_format(value, 3)
        if key in ("fcp", "lcp"):
            good_text, poor_text = _seconds(good), _seconds(poor)
        elif unit == "ms":
            good_text, poor_text = f"{number_format(good)} ms", f"{number_format(poor)} ms"
        else:
            good_text, poor_text = number_format(good), number_format(poor)
        rows.append(
            {
                "key": key,
                "label": CHECK_LABELS[METRIC_CHECKS[key]],
                "value": shown,
                "rating": measured.get("rating") or "none",
                "rating_label": METRIC_RATINGS.get(measured.get("rating"), _("Not measured")),
                "thresholds": gettext("good ≤ %(good)s, poor > %(poor)s") % {"good": good_text, "poor": poor_text},
            }
        )
    return {"rows": rows, "profile": metrics.get("profile") or {}}
