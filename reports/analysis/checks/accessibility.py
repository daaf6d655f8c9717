"""Accessibility checks: what a screen reader, a keyboard or a weak eye needs from the page.

The first five read the HTML. Colour contrast, tap targets, font size and image aspect ratio need
layout, so they run only on a rendered page (REPORTS_RENDER); without it they are left
out of the results rather than guessed.
"""

import contextlib

from reports.analysis.checks.base import LOW, MEDIUM, Category, Outcome, capped, directives
from reports.analysis.context import Context

category = Category("accessibility")


@category.check("link_name", MEDIUM)
def link_name(context: Context) -> Outcome:
    """Every link has a name a screen reader can announce: text, alt of an image, aria-label(ledby) or
    title (Lighthouse `link-name`, WCAG 2.4.4). Icon-only links to `#…` count too."""
    unnamed = [link.href or "(empty href)" for link in context.page.links if not link.accessible_name]
    value = {"links": len(context.page.links), "unnamed": len(unnamed)}
    return Outcome(value, {"missing": capped(dict.fromkeys(unnamed))} if unnamed else {})


@category.check("button_name", MEDIUM)
def button_name(context: Context) -> Outcome:
    """Every button has a name (Lighthouse `button-name`, WCAG 4.1.2)."""
    unnamed = [button.identifier for button in context.page.buttons if not button.name]
    value = {"buttons": len(context.page.buttons), "unnamed": len(unnamed)}
    return Outcome(value, {"missing": capped(unnamed)} if unnamed else {})


@category.check("form_labels", MEDIUM)
def form_labels(context: Context) -> Outcome:
    """Every form field has a label: <label>, aria-label(ledby), title or placeholder (Lighthouse `label`,
    WCAG 1.3.1 and 4.1.2). A hidden field needs none: hidden by the HTML, or, on a rendered page, by the
    stylesheets (display:none, visibility:hidden), as axe skips it."""
    unlabelled = [{"field": f.kind, "id": f.identifier} for f in context.page.form_fields if not f.name]
    value = {"fields": len(context.page.form_fields), "unlabelled": len(unlabelled)}
    return Outcome(value, {"missing": capped(unlabelled)} if unlabelled else {})


@category.check("zoomable", MEDIUM)
def zoomable(context: Context) -> Outcome:
    """The viewport lets people zoom: no user-scalable=no, no maximum-scale under 5 (Lighthouse
    `meta-viewport`, WCAG 1.4.4). Browsers also read ";" between the settings."""
    viewports = context.page.meta.get("viewport", [])
    if not viewports:
        return Outcome(None)
    settings = directives(viewports[0].replace(";", ","), ",")
    blocked = settings.get("user-scalable", "").lower() in ("no", "0")
    with contextlib.suppress(ValueError):  # browsers ignore a malformed maximum-scale
        blocked = blocked or float(settings.get("maximum-scale", "5")) < 5
    return Outcome(viewports[0], {"blocks_zoom": viewports[0]} if blocked else {})


@category.check("heading_order", LOW)
def heading_order(context: Context) -> Outcome:
    """Heading levels go down one step at a time (h2 then h3, not h2 then h4), so the outline a screen
    reader offers has no holes (Lighthouse `heading-order`)."""
    skips, previous = [], None
    for level, text in context.page.heading_outline:
        if previous is not None and level > previous + 1:
            skips.append({"from": f"h{previous}", "to": f"h{level}", "heading": text[:80]})
        previous = level
    value = [f"h{level}" for level, _ in capped(context.page.heading_outline)]
    return Outcome(value, {"skipped_levels": capped(skips)} if skips else {})


def _from_browser(context: Context, key: str) -> Outcome:
    """The verdict the browser computed for `key` (see rendering.py): its value and failing items."""
    found = (context.rendered or {}).get(key) or {}
    failures = found.get("failures") or []
    return Outcome(found.get("value"), {"failed": capped(failures)} if failures else {})


@category.check("color_contrast", MEDIUM, rendered_only=True)
def color_contrast(context: Context) -> Outcome:
    """Text contrasts with its background at least 4.5:1, or 3:1 when large (24px, or 18.66px bold):
    WCAG 1.4.3 AA, Lighthouse `color-contrast`. As axe-core (which Lighthouse runs) does, text is not
    judged over images, off screen (off the page, clipped, outside the box that hides its overflow),
    in or labelling a disabled control, without a letter or digit, or, when it fails, of one character."""
    return _from_browser(context, "color_contrast")


@category.check("tap_targets", MEDIUM, rendered_only=True)
def tap_targets(context: Context) -> Outcome:
    """Targets are at least 24 by 24 CSS pixels on a phone-sized screen, or a 24px circle on their centre
    touches no other target: WCAG 2.5.8 AA, measured as axe-core's `target-size` rule (Lighthouse
    `target-size`) does. Targets are focusable widgets (links, buttons, fields, widget roles); one in a
    line of text is exempt (WCAG's "inline" exception, axe's "in a text block": any text of its own
    beside it); a neighbour with the same URL is the same target; only a target in the tab order next
    to another one fails, since axe leaves the rest undecided, as it does a target off screen or whose
    content spills out of it; and targets crowd each other only when they move together (the fixed
    layer, one scrolling box, the page). Medium, as colour contrast: a WCAG AA
    failure that axe rates serious, which makes people with tremors or large fingers miss links."""
    return _from_browser(context, "tap_targets")


@category.check("font_size", MEDIUM, rendered_only=True)
def font_size(context: Context) -> Outcome:
    """At least 60 % of the visible text is 12 CSS pixels or larger on a phone-sized screen (Lighthouse
    `font-size`, after Google's mobile-friendly test): smaller text has to be zoomed to be read. Without
    a device-width viewport a phone shrinks every size; `meta_viewport` reports that."""
    return _from_browser(context, "font_size")


@category.check("image_aspect_ratio", LOW, rendered_only=True)
def image_aspect_ratio(context: Context) -> Outcome:
    """Images are displayed in their file's aspect ratio, within 5 % (Lighthouse `image-aspect-ratio`):
    a squeezed image looks broken."""
    return _from_browser(context, "image_aspect_ratio")
