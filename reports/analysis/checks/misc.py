"""Miscellaneous checks: metadata for sharing, content quality, leftovers of old HTML."""

import json

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


@category.check("structured_data", MEDIUM)
def structured_data(context: Context) -> Outcome:
    meta = context.page.meta
    open_graph = {key: values[0] for key, values in meta.items() if key.startswith("og:")}
    twitter = {key: values[0] for key, values in meta.items() if key.startswith("twitter:")}
    types, invalid = [], 0
    for block in context.page.json_ld:
        try:
            data = json.loads(block)
        except ValueError:
            invalid += 1
            continue
        items = data if isinstance(data, list) else data.get("@graph", [data]) if isinstance(data, dict) else []
        types += [str(item.get("@type")) for item in items if isinstance(item, dict) and item.get("@type")]
    value = {"open_graph": open_graph, "twitter": twitter, "json_ld": types}
    errors: dict[str, object] = {}
    if not (open_graph or twitter or types):
        errors["missing"] = None
    if invalid:
        errors["bad_format"] = {"invalid_json_ld_blocks": invalid}
    return Outcome(value, errors)


@category.check("meta_viewport", MEDIUM)
def meta_viewport(context: Context) -> Outcome:
    viewports = context.page.meta.get("viewport", [])
    if not viewports:
        return Outcome(None, {"missing": None})
    if directives(viewports[0], ",").get("width", "").lower() != "device-width":
        return Outcome(viewports[0], {"bad_format": viewports[0]})
    return Outcome(viewports[0])


@category.check("charset", MEDIUM)
def charset(context: Context) -> Outcome:
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
    return _text_file(context.resources.sitemap)


@category.check("social", LOW)
def social(context: Context) -> Outcome:
    found: dict[str, str] = {}
    for link in context.page.links:
        network = _social_network(link.url)
        if network:
            found.setdefault(network, link.url)
    return Outcome(found, {} if found else {"missing": None})


@category.check("content_length", LOW)
def content_length(context: Context) -> Outcome:
    current, minimum = len(context.page.words), context.thresholds["min_words"]
    return Outcome(current, {"too_few": limit(minimum=minimum, current=current)} if current < minimum else {})


@category.check("text_html_ratio", LOW)
def text_html_ratio(context: Context) -> Outcome:
    page = context.page
    ratio = round(100 * len(page.text) / page.html_length, 1) if page.html_length else 0.0
    minimum = context.thresholds["min_text_html_ratio"]
    return Outcome(ratio, {"too_low": limit(minimum=minimum, current=ratio)} if ratio < minimum else {})


@category.check("inline_css", LOW)
def inline_css(context: Context) -> Outcome:
    tags = context.page.inline_styles
    return Outcome(len(tags), {"found": capped(dict.fromkeys(tags))} if tags else {})


@category.check("deprecated_html_tags", LOW)
def deprecated_html_tags(context: Context) -> Outcome:
    found = dict(context.page.deprecated_tags)
    return Outcome(found, {"found": found} if found else {})


@category.check("llms_txt", LOW)
def llms_txt(context: Context) -> Outcome:
    return _text_file(context.resources.llms_txt)


@category.check("flash_content", LOW)
def flash_content(context: Context) -> Outcome:
    flash = [
        url or "(no URL)"
        for url, plugin_type in context.page.plugins
        if plugin_type.lower() in FLASH_TYPES or url.lower().split("?", 1)[0].endswith(".swf")
    ]
    return Outcome(capped(flash), {"found": capped(flash)} if flash else {})


@category.check("iframes", LOW)
def iframes(context: Context) -> Outcome:
    frames = context.page.iframes
    return Outcome(capped(frames), {"found": capped(frames)} if frames else {})
