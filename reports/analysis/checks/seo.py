"""Search-engine checks: what a crawler reads to index and rank the page."""

import re
from collections import Counter
from urllib.parse import parse_qsl, unquote, urlsplit

from django.conf import settings

from reports.analysis.checks.base import HIGH, LOW, MEDIUM, Category, Outcome, capped, limit
from reports.analysis.context import Context
from reports.analysis.html import WORD_RE, url_host
from reports.analysis.robots import parse_robots

category = Category("seo")

_STOPWORDS_TEXT = """
    a about above after again against all am an and any are as at be because been before being below between
    both but by can could did do does doing down during each few for from further had has have having he her here
    hers him his how i if in into is it its just me more most my no nor not now of off on once only or other our
    ours out over own same she should so some such than that the their theirs them then there these they this
    those through to too under until up very was we were what when where which while who whom why will with would
    you your yours also get got may might must new one two via per el la le les de des du et un une der die das
und"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())

GENERIC_LINK_TEXTS = frozenset(
    {
        "click here", "click this", "continue", "details", "go", "here", "learn more", "link", "more",
        "more info", "read more", "right here", "see more", "start", "this", "this page", "view more",
    }
)  # fmt: skip

LINK_TEXT_DECORATION = " .:!\u00bb\u203a\u2192"  # arrows and punctuation around "read more"

# Characters that make a URL hard to read or that crawlers may mangle.
URL_BAD_CHARACTERS = frozenset("_ ,;!+()[]{}<>|\\^\"'")

LANGUAGE_RE = re.compile(r"^[a-z]{2,3}(-[a-z]{4})?(-([a-z]{2}|\d{3}))?(-[a-z0-9]{5,8})*$", re.IGNORECASE)


def keywords(words: list[str]) -> list[str]:
    return [word for word in words if len(word) > 2 and word not in STOPWORDS]


def stem(word: str) -> str:
    """A crude singular, so that "rakes" in a heading matches "rake" in the text."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def url_problems(url: str, thresholds: dict[str, float]) -> dict[str, object]:
    """What makes `url` unfriendly: odd characters, upper case, too many parameters, length."""
    parts = urlsplit(url)
    path = unquote(parts.path)
    problems: dict[str, object] = {}
    bad = sorted({char for char in path if char in URL_BAD_CHARACTERS})
    if bad:
        problems["bad_characters"] = bad
    params = len(parse_qsl(parts.query, keep_blank_values=True))
    if params > thresholds["max_url_params"]:
        problems["too_many_params"] = limit(maximum=thresholds["max_url_params"], current=params)
    if len(url) > thresholds["max_url_length"]:
        problems["too_long"] = limit(maximum=thresholds["max_url_length"], current=len(url))
    return problems


@category.check("title", HIGH)
def title(context: Context) -> Outcome:
    """One non-empty <title> (Lighthouse `document-title`); its length is `title_optimal_length`'s concern."""
    titles = context.page.titles
    errors: dict[str, object] = {}
    if not titles or not titles[0]:
        errors["missing"] = None
    if len(titles) > 1:
        errors["too_many"] = titles
    return Outcome(titles[0] if titles else None, errors)


@category.check("title_optimal_length", LOW)
def title_optimal_length(context: Context) -> Outcome:
    """10 to 70 characters: shorter says little, longer is cut in results (python-seo-analyzer's range;
    Google Search Central sets no limit and truncates to the width of the result)."""
    t = context.thresholds
    length = len(context.page.titles[0]) if context.page.titles else 0
    if t["min_title_optimal"] <= length <= t["max_title_optimal"]:
        return Outcome(length)
    return Outcome(length, {"not_optimal": limit(t["min_title_optimal"], t["max_title_optimal"], current=length)})


def _descriptions(context: Context) -> list[str]:
    return context.page.meta.get("description", [])


@category.check("meta_description", MEDIUM)
def meta_description(context: Context) -> Outcome:
    """A description exists (Lighthouse `meta-description`); search engines may write a snippet without it."""
    descriptions = _descriptions(context)
    errors: dict[str, object] = {}
    if not descriptions or not descriptions[0]:
        errors["missing"] = None
    if len(descriptions) > 1:
        errors["too_many"] = descriptions
    return Outcome(descriptions[0] if descriptions else None, errors)


@category.check("meta_description_optimal_length", LOW)
def meta_description_optimal_length(context: Context) -> Outcome:
    """50 to 320 characters: Google shows about 160 and cuts the rest, so longer is not an error up to
    the 320 it once displayed; under 50 rarely describes the page."""
    t = context.thresholds
    descriptions = _descriptions(context)
    length = len(descriptions[0]) if descriptions else 0
    if not length or t["min_description_optimal"] <= length <= t["max_description_optimal"]:
        return Outcome(length)  # no description at all is meta_description's failure, not this one's
    detail = limit(t["min_description_optimal"], t["max_description_optimal"], current=length)
    return Outcome(length, {"not_optimal": detail})


@category.check("headings", LOW)
def headings(context: Context) -> Outcome:
    """The page has a non-empty <h1> naming its subject. Low importance: Google ranks pages without one
    and with several (Search Central), and Lighthouse does not require one; an h1 equal to the title
    is fine too."""
    page = context.page
    h1s = [text for text in page.headings.get("h1", []) if text]
    value = {tag: capped(texts) for tag, texts in page.headings.items() if texts}
    return Outcome(value, {} if h1s else {"missing": None})


@category.check("content_keywords", LOW)
def content_keywords(context: Context) -> Outcome:
    """At least half of the title's keywords appear in the text: a title that the page does not talk
    about misleads searchers. Brand words often appear only in the logo, hence "half"."""
    page = context.page
    title = page.titles[0] if page.titles else ""
    title_words = list(dict.fromkeys(keywords([word.lower() for word in WORD_RE.findall(title)])))
    if not title_words:
        return Outcome([], {"missing": None})
    body = {stem(word) for word in page.words}
    missing = [word for word in title_words if stem(word) not in body]
    return Outcome(title_words, {"missing": missing} if len(missing) * 2 > len(title_words) else {})


@category.check("keyword_consistency", LOW)
def keyword_consistency(context: Context) -> Outcome:
    """The body's five most frequent keywords should mostly appear in the title, description or headings;
    fails when more than `max_missing_keywords` (3) of them appear in none."""
    page = context.page
    top = Counter(keywords(page.words)).most_common(5)
    if not top:
        return Outcome([], {"missing": None})
    summary = " ".join([*page.titles, *_descriptions(context), *(h for hs in page.headings.values() for h in hs)])
    summary_words = {stem(word.lower()) for word in WORD_RE.findall(summary)}
    missing = [word for word, _ in top if stem(word) not in summary_words]
    value = [{"keyword": word, "count": count} for word, count in top]
    max_missing = context.thresholds["max_missing_keywords"]
    return Outcome(value, {"missing": missing} if len(missing) > max_missing else {})


@category.check("image_keywords", MEDIUM)
def image_alt(context: Context) -> Outcome:
    """Every <img> has an alt attribute (Lighthouse `image-alt`, WCAG 1.1.1); alt="" marks decoration."""
    # An empty alt="" is right for a decorative image; only a missing attribute fails.
    missing = [image.src for image in context.page.images if image.alt is None]
    value = {"images": len(context.page.images), "without_alt": len(missing)}
    return Outcome(value, {"missing": capped(missing)} if missing else {})


@category.check("seo_friendly_url", LOW)
def seo_friendly_url(context: Context) -> Outcome:
    """Readable URL: hyphens not underscores or punctuation, few parameters, under 115 characters
    (Google Search Central, "URL structure"). Crawlers cope with either, hence low importance."""
    url = context.document.url
    problems = url_problems(url, context.thresholds)
    return Outcome(url, {"bad_format": problems} if problems else {})


@category.check("canonical_tag", MEDIUM)
def canonical_tag(context: Context) -> Outcome:
    """No canonical is fine (the page is its own). A present one must be single, absolute and valid, and
    not the site's root for a deeper page: Lighthouse `canonical`'s rules. Another host is allowed
    (Google honours cross-domain canonicals), so a copy naming its original passes."""
    page = context.page
    canonicals = list(dict.fromkeys(page.canonicals))
    errors: dict[str, object] = {}
    if len(canonicals) > 1:
        errors["too_many"] = canonicals
    elif canonicals:
        href, url = page.canonical_hrefs[0], canonicals[0]
        parts = urlsplit(url)
        if not href.lower().startswith(("http://", "https://")) or not parts.hostname:
            errors["bad_format"] = href
        elif (
            url_host(url) == url_host(context.document.url)
            and parts.path in ("", "/")
            and urlsplit(context.document.url).path not in ("", "/")
        ):
            errors["points_to_root"] = url
    return Outcome(canonicals[0] if canonicals else None, errors)


@category.check("hreflang", LOW)
def hreflang(context: Context) -> Outcome:
    """hreflang annotations, where present, are valid language codes with a URL (Lighthouse `hreflang`)."""
    # A page in one language needs no hreflang; only broken annotations fail.
    entries = context.page.hreflangs
    invalid = [
        {"hreflang": code, "href": href}
        for code, href in entries
        if not href or not (code.lower() == "x-default" or LANGUAGE_RE.match(code))
    ]
    value = [{"hreflang": code, "href": href} for code, href in capped(entries)]
    return Outcome(value, {"bad_format": capped(invalid)} if invalid else {})


@category.check("404_page", MEDIUM)
def not_found_page(context: Context) -> Outcome:
    """A made-up URL answers 404 or 410; a "soft 404" (200 for anything) gets junk pages indexed."""
    probe = context.resources.not_found
    if probe is None or probe.fetched is None:
        return Outcome(None, {"failed": probe.error if probe else "not checked"})
    status = probe.fetched.status
    value = {"url": probe.url, "status": status}
    return Outcome(value, {} if status in (404, 410) else {"wrong_status": status})


@category.check("robots", HIGH)
def robots(context: Context) -> Outcome:
    """robots.txt does not disallow this URL (RFC 9309; Lighthouse `is-crawlable`, `robots-txt`)."""
    probe = context.resources.robots
    if probe is None or probe.fetched is None:
        return Outcome(None, {"failed": probe.error if probe else "not checked"})
    value = {"url": probe.url, "status": probe.status}
    if probe.fetched.status >= 500:
        # Crawlers treat an erroring robots.txt as "disallow everything" until it recovers.
        return Outcome(value, {"failed": f"robots.txt answered HTTP {probe.fetched.status}"})
    if not probe.ok or probe.fetched.content_type == "text/html":
        return Outcome(value)  # no robots.txt (a soft 404 is an HTML page): everything is allowed
    parts = urlsplit(context.document.url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    rule = parse_robots(probe.fetched.body.decode("utf-8", errors="replace")).deciding_rule(
        settings.REPORTS_USER_AGENT, path
    )
    if rule is not None and not rule.allow:
        return Outcome(value, {"disallowed": str(rule)})
    return Outcome(value)


def _is_noindex(directives: str) -> bool:
    tokens = {token.strip().lower() for token in directives.replace(":", ",").split(",")}
    return bool(tokens & {"noindex", "none"})


@category.check("noindex", HIGH)
def noindex(context: Context) -> Outcome:
    """No `<meta name=robots content=noindex>` (Lighthouse `is-crawlable`): such a page is never listed."""
    meta = context.page.meta
    found = [content for name in ("robots", "googlebot") for content in meta.get(name, []) if _is_noindex(content)]
    return Outcome(found[0] if found else None, {"noindex": found[0]} if found else {})


@category.check("noindex_header", HIGH)
def noindex_header(context: Context) -> Outcome:
    """No `X-Robots-Tag: noindex` header (Lighthouse `is-crawlable`)."""
    values = context.document.headers.get_list("x-robots-tag")
    found = [value for value in values if _is_noindex(value)]
    return Outcome(values or None, {"noindex": found[0]} if found else {})


@category.check("in_page_links", LOW)
def in_page_links(context: Context) -> Outcome:
    """At most `max_links` (3000) links: Google's old guideline, "a few thousand at most". Reference
    pages with hundreds of links are normal."""
    links = context.page.links
    internals = [link.url for link in links if link.internal]
    externals = [link.url for link in links if not link.internal]
    value = {
        "total": len(links),
        "internal": len(internals),
        "external": len(externals),
        "internals": capped(dict.fromkeys(internals)),
        "externals": capped(dict.fromkeys(externals)),
    }
    maximum = context.thresholds["max_links"]
    return Outcome(value, {"too_many": limit(maximum=maximum, current=len(links))} if len(links) > maximum else {})


@category.check("nofollow_links", LOW)
def nofollow_links(context: Context) -> Outcome:
    """No rel=nofollow on links to the site's own pages."""
    # nofollow on a link to one's own page throws away the crawl path to it.
    nofollow = [link for link in context.page.links if "nofollow" in link.rel]
    internal = [link.url for link in nofollow if link.internal]
    value = capped(link.url for link in nofollow)
    return Outcome(value, {"internal_nofollow": capped(internal)} if internal else {})


@category.check("link_text", MEDIUM)
def link_text(context: Context) -> Outcome:
    """Links to other pages say where they go, not "click here" (Lighthouse `link-text`, which also skips
    in-page and javascript: links). Links with no name at all are accessibility's `link_name`."""
    generic = []
    for link in context.page.links:
        if link.href.startswith("#") or link.href.lower().startswith("javascript:") or "nofollow" in link.rel:
            continue
        text = link.text.strip(LINK_TEXT_DECORATION).lower()
        if text in GENERIC_LINK_TEXTS and not link.label:
            generic.append({"url": link.url, "text": link.text})
    return Outcome(len(context.page.links), {"generic": capped(generic)} if generic else {})


# Schemes a crawler cannot follow; mailto: and tel: are not meant to be crawled, so they are not errors.
UNCRAWLABLE_SCHEMES = ("javascript:", "file:")


@category.check("crawlable_links", MEDIUM)
def crawlable_links(context: Context) -> Outcome:
    """Every link has an href a crawler can follow (Lighthouse `crawlable-anchors`): not empty, not
    javascript: or file:, a valid URL. Anchors with a role or an old `name` are not navigation. On a
    rendered page, an anchor without href that a script listens to is a link crawlers cannot follow."""
    broken = list((context.rendered or {}).get("scripted_anchors") or [])
    for link in context.page.links:
        href = "".join(link.href.split())
        if link.role or href.lower().startswith(("mailto:", "tel:")):
            continue
        if href.lower().startswith("file:"):
            broken.append(link.href)
        elif link.name_attribute:
            continue
        elif not href or href.lower().startswith(UNCRAWLABLE_SCHEMES) or not _is_valid_url(link.url):
            broken.append(link.href or "(empty href)")
    value = {"links": len(context.page.links), "uncrawlable": len(broken)}
    return Outcome(value, {"uncrawlable": capped(dict.fromkeys(broken))} if broken else {})


def _is_valid_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  # raises on a malformed port
    except ValueError:
        return False
    return bool(parts.scheme)


@category.check("link_url_readability", LOW)
def link_url_readability(context: Context) -> Outcome:
    """The page's internal links use readable URLs (the rules of `seo_friendly_url`)."""
    urls = dict.fromkeys(link.url for link in context.page.links if link.internal)
    unfriendly = [url for url in urls if url_problems(url, context.thresholds)]
    return Outcome(len(urls), {"unfriendly_urls": capped(unfriendly)} if unfriendly else {})


@category.check("language", MEDIUM)
def language(context: Context) -> Outcome:
    """`<html lang>` is a valid BCP 47 tag (Lighthouse `html-has-lang`, `html-lang-valid`; WCAG 3.1.1):
    screen readers pick their voice by it, search engines their audience."""
    lang = context.page.lang
    if not lang:
        return Outcome(None, {"missing": None})
    return Outcome(lang, {} if LANGUAGE_RE.match(lang) else {"bad_format": lang})


@category.check("favicon", LOW)
def favicon(context: Context) -> Outcome:
    """A favicon is declared or served at /favicon.ico; search results and tabs show it."""
    probe = context.resources.favicon
    if context.page.icons:
        return Outcome(context.page.icons[0])
    if probe is not None and probe.ok and probe.fetched and probe.fetched.content_type != "text/html":
        return Outcome(probe.url)
    return Outcome(None, {"missing": None})
