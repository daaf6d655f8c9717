"""English left on a translated page: the text a reader sees that is the same in English and in
the page's language, and is not a name or a word both languages share.

Used by each interface's page tests (through Django's test client) and by the browser sweep
(tests/foundation/test_i18n_browser.py). A page is fetched once in English and once in the other
language; a visible text segment found in both is English left untranslated, unless it is:
- not words (numbers, dates, URLs, e-mail addresses, code, the paste's own text);
- a name from NAMES (the service's, formats, protocols);
- a term the language's glossary (locale/<lang>/glossary.csv) keeps as it is in English;
- one of the `ignore` segments the test passes (the objects' own titles, usernames, URLs).
"""

import csv
import re
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

LOCALE = Path(__file__).resolve().parent.parent / "locale"

# Names every language keeps (issue 48: "beyond a short list of names").
NAMES = {
    "webtools",
    "api",
    "url",
    "urls",
    "qr",
    "json",
    "csv",
    "svg",
    "png",
    "pdf",
    "zip",
    "html",
    "http",
    "https",
    "openapi",
    "seo",
    "ldap",
    "oidc",
    "sso",
    "totp",
    "rss",
    "ok",
    "id",
    "ip",
    "github",
    "gitlab",
    "google",
    "markdown",
    "lstu",
    "idefasoft",
    "shlink",
    "bitly",
    "yourls",
    "kutt",
    "django",
    "english",
    "français",
    "deutsch",
    "español",
    "swagger",
    "redoc",
    "lighthouse",
}
# Elements whose text is content or code, not the page's words.
CONTENT_ELEMENTS = {"script", "style", "pre", "code", "textarea", "template", "noscript", "kbd", "samp", "option"}
# Attributes a reader sees or hears (screen readers).
READ_ATTRIBUTES = {"title", "aria-label", "alt", "placeholder", "aria-description"}
NOT_WORDS = re.compile(r"^[\W\d_]*$|^[a-z][a-z0-9+.-]*://\S*$|^\S+@\S+$|^/\S*$|^[\w.-]+\.[a-z]{2,}(/\S*)?$", re.I)


class _VisibleText(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.segments: list[str] = []
        self._skip_depth = 0
        self._stack: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag in CONTENT_ELEMENTS:
            self._skip_depth += 1
        if "hidden" not in attributes:
            for name in READ_ATTRIBUTES:
                if attributes.get(name):
                    self.segments.append(attributes[name])
            if tag == "input" and attributes.get("type") in {"submit", "button", "reset"} and attributes.get("value"):
                self.segments.append(attributes["value"])
        if tag not in {"br", "img", "input", "meta", "link", "hr", "source", "wbr", "col", "area", "base"}:
            self._stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self._stack:
            while self._stack and self._stack.pop() != tag:
                pass
            if tag in CONTENT_ELEMENTS and self._skip_depth:
                self._skip_depth -= 1

    def handle_data(self, data):
        if not self._skip_depth:
            self.segments.append(data)


def visible_segments(html: str) -> set[str]:
    parser = _VisibleText()
    parser.feed(html)
    return {" ".join(segment.split()) for segment in parser.segments if segment.strip()}


@cache
def kept_terms(language: str) -> frozenset[str]:
    """Glossary terms the language writes as English does (Score, Link, Domain, …)."""
    path = LOCALE / language / "glossary.csv"
    with path.open(newline="") as file:
        rows = csv.DictReader(file)
        return frozenset(row["source"].lower() for row in rows if row["source"].lower() == row["target"].lower())


def is_english_left(segment: str, language: str, ignore: frozenset[str] = frozenset()) -> bool:
    lowered = segment.lower().strip(" .,:;!?()[]«»\"'…·|\u2013\u2014-")
    if not lowered or NOT_WORDS.match(lowered) or segment in ignore or lowered in ignore:
        return False
    words = re.findall(r"[^\W\d_]{2,}", lowered)
    allowed = NAMES | kept_terms(language) | {word.lower() for word in ignore}
    return bool(words) and not all(word in allowed for word in words) and lowered not in allowed


def untranslated(english_html: str, translated_html: str, language: str, ignore=()) -> list[str]:
    """The visible segments of `translated_html` that are English left untranslated."""
    ignore = frozenset(ignore)
    english = visible_segments(english_html)
    return sorted(s for s in visible_segments(translated_html) & english if is_english_left(s, language, ignore))
