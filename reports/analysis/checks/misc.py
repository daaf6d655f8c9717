"""Miscellaneous checks: metadata for sharing, content quality, leftovers of old HTML."""

from common import parsers
from reports.analysis.checks.base import LOW, MEDIUM, Category, Outcome, capped, directives, limit
from reports.analysis.context import Context, Probe
from reports.analysis.html import url_host

category = Category("miscellaneous")

SOCIAL_HOSTS = {
    "facebook.com": "Facebook",
    "x.com": "X",
    "twitter.com": "X",
    "instagram.com": "Instagram",
    "linkedin.com": "LinkedIn",
    "youtube.com": "YouTube",
    "tiktok.com": "TikTok",
    "pinterest.com": "Pinterest",
    "github.com": "GitHub",
    "mastodon.social": "Mastodon",
    "bsky.app": "Bluesky",
    "threads.net": "Threads",
    "reddit.com": "Reddit",
}
FLASH_TYPES = {"application/x-shockwave-flash", "application/futuresplash"}


def _social_network(url: str) -> str | None:
    host = url_host(url)
    for domain, name in SOCIAL_HOSTS.items():
        if host == domain or host.endswith(f".{domain}"):
            return name
    return None


@category.check("structured_data", LOW)
def structured_data(context: Context) -> Outcome:
    """Open Graph, Twitter card and JSON-LD metadata, where present, are filled in and valid JSON. It shapes
    shared links and rich results, but nothing requires it (Google Search Central; Lighthouse's
    `structured-data` is a manual audit), so a page without any passes."""
    meta = context.page.meta
    open_graph = {key: values[0] for key, values in meta.items() if key.startswith("og:")}
    twitter = {key: values[0] for key, values in meta.items() if key.startswith("twitter:")}
    types, invalid = [], 0
    for block in context.page.json_ld:
        # The shared parser: the standard library's recursed into a 100,000-deep block (the analysis
        # failed with an unexpected error); too deep a block is invalid JSON-LD like any other.
        try:
            data = parsers.loads(block)
        except parsers.MalformedJSON:
            invalid += 1
            continue
        items = data if isinstance(data, list) else data.get("@graph", [data]) if isinstance(data, dict) else []
        types += [str(item.get("@type")) for item in items if isinstance(item, dict) and item.get("@type")]
    value = {"open_graph": open_graph, "twitter": twitter, "json_ld": types}
    errors: dict[str, object] = {}
    empty = [key for key, content in {**open_graph, **twitter}.items() if not content]
    if empty:
        errors["empty"] = empty
    if invalid:
        errors["bad_format"] = {"invalid_json_ld_blocks": invalid}
    return Outcome(value, errors)


@category.check("meta_viewport", MEDIUM)
def meta_viewport(context: Context) -> Outcome:
    """`<meta name=viewport content="width=device-width…">`, without which phones show a shrunken
    desktop page (Lighthouse `viewport`). Whether it lets people zoom is accessibility's `zoomable`."""
    viewports = context.page.meta.get("viewport", [])
    if not viewports:
        return Outcome(None, {"missing": None})
    # Browsers also accept ";" between the settings, as older pages write them.
    settings = directives(viewports[0].replace(";", ","), ",")
    if settings.get("width", "").lower() != "device-width":
        return Outcome(viewports[0], {"bad_format": viewports[0]})
    return Outcome(viewports[0])


@category.check("charset", MEDIUM)
def charset(context: Context) -> Outcome:
    """The character encoding is declared, known and right for the bytes (Lighthouse `charset`)."""
    decoded = context.decoded
    errors: dict[str, object] = {}
    if decoded.declared is None:
        errors["missing"] = None
    elif decoded.unknown_declared:
        errors["unknown"] = decoded.declared
    if decoded.invalid_at is not None:
        errors["invalid_bytes"] = {"encoding": decoded.encoding, "offset": decoded.invalid_at}
    value = {"declared": decoded.declared, "declared_in": decoded.declared_in, "used": decoded.encoding}
    return Outcome(value, errors)


def _text_file(probe: Probe | None) -> Outcome:
    """Pass when the probed file exists and is not an HTML page."""
    if probe is None:
        return Outcome(None, {"missing": None})
    # A soft-404 site answers 200 with an HTML page for any path, which is not the file asked for.
    if probe.ok and probe.fetched is not None and probe.fetched.content_type != "text/html":
        return Outcome(probe.url)
    return Outcome(probe.url, {"missing": probe.error})


@category.check("sitemap", LOW)
def sitemap(context: Context) -> Outcome:
    """A sitemap is listed in robots.txt or served at /sitemap.xml; it helps crawlers find new pages."""
    return _text_file(context.resources.sitemap)


@category.check("social", LOW)
def social(context: Context) -> Outcome:
    """The page links to a social profile or code host."""
    found: dict[str, str] = {}
    for link in context.page.links:
        network = _social_network(link.url)
        if network:
            found.setdefault(network, link.url)
    return Outcome(found, {} if found else {"missing": None})


@category.check("content_length", LOW)
def content_length(context: Context) -> Outcome:
    """At least `min_words` (250) words of visible text; Google sets no minimum, so this only hints at
    thin content."""
    current, minimum = len(context.page.words), context.thresholds["min_words"]
    return Outcome(current, {"too_few": limit(minimum=minimum, current=current)} if current < minimum else {})


@category.check("text_html_ratio", LOW)
def text_html_ratio(context: Context) -> Outcome:
    """Visible text is at least `min_text_html_ratio` (5 %) of the HTML; less means mostly markup or
    inline code. No published guideline: a hint only."""
    page = context.page
    ratio = round(100 * len(page.text) / page.html_length, 1) if page.html_length else 0.0
    minimum = context.thresholds["min_text_html_ratio"]
    return Outcome(ratio, {"too_low": limit(minimum=minimum, current=ratio)} if ratio < minimum else {})


@category.check("inline_css", LOW)
def inline_css(context: Context) -> Outcome:
    """At most `max_inline_styles` (50) style attributes: a few are harmless, many repeat bytes on every
    page that a stylesheet would cache, and block a strict Content-Security-Policy."""
    tags = context.page.inline_styles
    maximum = context.thresholds["max_inline_styles"]
    value = {"count": len(tags), "tags": capped(dict.fromkeys(tags))}
    return Outcome(value, {"too_many": limit(maximum=maximum, current=len(tags))} if len(tags) > maximum else {})


@category.check("deprecated_html_tags", LOW)
def deprecated_html_tags(context: Context) -> Outcome:
    """No elements the HTML standard made obsolete (<center>, <font>, <frame>, …, section 16.2)."""
    found = dict(context.page.deprecated_tags)
    return Outcome(found, {"found": found} if found else {})


@category.check("llms_txt", LOW)
def llms_txt(context: Context) -> Outcome:
    """An /llms.txt, where present, is Markdown starting with a "# " title (llmstxt.org). It is an
    optional proposal, so a site without one passes."""
    probe = context.resources.llms_txt
    found = _text_file(probe)
    if not found.passed or probe is None or probe.fetched is None:
        return Outcome(None)
    first_line = probe.fetched.body.lstrip().split(b"\n", 1)[0]
    return Outcome(
        probe.url, {} if first_line.startswith(b"# ") else {"bad_format": first_line[:80].decode(errors="replace")}
    )


@category.check("flash_content", MEDIUM)
def flash_content(context: Context) -> Outcome:
    """No Flash: no browser has run it since 2021, so whatever it shows nobody sees."""
    flash = [
        url or "(no URL)"
        for url, plugin_type in context.page.plugins
        if plugin_type.lower() in FLASH_TYPES or url.lower().split("?", 1)[0].endswith(".swf")
    ]
    return Outcome(capped(flash), {"found": capped(flash)} if flash else {})


@category.check("iframes", MEDIUM)
def iframes(context: Context) -> Outcome:
    """Embedded frames have a title, so screen reader users know what each holds (Lighthouse
    `frame-title`, WCAG 4.1.2): as costly to them as an unnamed link. Frames themselves are fine."""
    frames, untitled = context.page.iframes, context.page.untitled_iframes
    return Outcome(capped(frames), {"missing_title": capped(untitled)} if untitled else {})
