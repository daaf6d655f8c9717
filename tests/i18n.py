"""English left on a translated page: the text a reader sees that is the same in English and in
the page's language, and is not a name or a word both languages share.

Used by each interface's page tests (through Django's test client) and by the browser sweep
(tests/foundation/test_i18n_browser.py). A page is fetched once in English and once in the other
language; a visible text segment found in both is English left untranslated, unless it is:
- not words (numbers, dates, URLs, e-mail addresses, code, the paste's own text);
- a name from NAMES (the service's, formats, protocols);
- a term the language's glossary (locale/<lang>/glossary.csv) keeps as it is in English;
- one of the `ignore` segments the test passes (the objects' own titles, usernames, URLs);
- inside an element marked translate="no" (HTML's attribute for text that stays as it is, such as
  the API documentation drawn from the English API).
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
    "utc",
    "utf",
    "python",
    "javascript",
    "mozilla",
}
# Elements whose text is content or code, not the page's words.
CONTENT_ELEMENTS = {"script", "style", "pre", "code", "textarea", "template", "noscript", "kbd", "samp", "option"}
# Attributes a reader sees or hears (screen readers).
READ_ATTRIBUTES = {"title", "aria-label", "alt", "placeholder", "aria-description"}
QUOTED = re.compile(r"[a-z][a-z0-9+.-]*://\S+|mozilla/5\.0 \(.*", re.I)
NOT_WORDS = re.compile(r"^[\W\d_]*$|^[a-z][a-z0-9+.-]*://\S*$|^\S+@\S+$|^/\S*$|^[\w.-]+\.[a-z]{2,}(/\S*)?$", re.I)


class _VisibleText(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.segments: list[str] = []
        self._skip_depth = 0
        # Open elements: the tag, whether it starts a part left out (content, or translate="no"), and
        # whether it is translate="no" (whose descendants' attributes are left out too).
        self._stack: list[tuple[str, bool, bool]] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        # translate="no" (HTML's own attribute) marks text that stays in its language on every page,
        # e.g. what Swagger UI draws from the English API's schema: left out, its attributes too.
        untranslatable = attributes.get("translate") == "no"
        skips = tag in CONTENT_ELEMENTS or untranslatable
        if "hidden" not in attributes and not untranslatable and not self._skips_attributes():
            for name in READ_ATTRIBUTES:
                if attributes.get(name):
                    self.segments.append(attributes[name])
            if tag == "input" and attributes.get("type") in {"submit", "button", "reset"} and attributes.get("value"):
                self.segments.append(attributes["value"])
        if tag not in {"br", "img", "input", "meta", "link", "hr", "source", "wbr", "col", "area", "base"}:
            self._stack.append((tag, skips, untranslatable))
            self._skip_depth += skips

    def _skips_attributes(self) -> bool:
        return any(untranslatable for _, _, untranslatable in self._stack)

    def handle_endtag(self, tag):
        if any(open_tag == tag for open_tag, _, _ in self._stack):
            while self._stack:
                open_tag, skips, _ = self._stack.pop()
                self._skip_depth -= skips
                if open_tag == tag:
                    break

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
    # What the page quotes is not its own words: the objects' texts, URLs, a browser's user agent.
    for text in sorted(ignore, key=len, reverse=True):
        lowered = lowered.replace(text.lower(), " ")
    lowered = QUOTED.sub(" ", lowered)
    words = re.findall(r"[^\W\d_]{2,}", lowered)
    allowed = NAMES | kept_terms(language) | {word.lower() for word in ignore}
    return bool(words) and not all(word in allowed for word in words) and lowered not in allowed


def untranslated(english_html: str, translated_html: str, language: str, ignore=()) -> list[str]:
    """The visible segments of `translated_html` that are English left untranslated."""
    ignore = frozenset(ignore)
    english = visible_segments(english_html)
    return sorted(s for s in visible_segments(translated_html) & english if is_english_left(s, language, ignore))
