"""`analyze(url)`: fetch a page and what it needs, run every check, score the result."""

import time

import httpx
from django.conf import settings

from reports.analysis import config, scoring
from reports.analysis.checks import run_checks
from reports.analysis.context import Context
from reports.analysis.errors import AnalysisError
from reports.analysis.fetch import Fetcher
from reports.analysis.html import ParsedPage, content_type_charset, decode, parse
from reports.analysis.result import AnalysisResult
from reports.analysis.subrequests import gather


def analyze(url: str) -> AnalysisResult:
    """Analyse the page at `url`; raise AnalysisError (with a message for the user) if it cannot be."""
    started = time.monotonic()
    fetcher = Fetcher()
    rendered = None
    try:
        document = fetcher.fetch(url, html_only=True)
        if document.status >= 400:
            reason = httpx.codes.get_reason_phrase(document.status)
            raise AnalysisError(f"The page answered with HTTP status {document.status} ({reason}).")
        decoded = decode(document.body, content_type_charset(document.headers.get("content-type", "")))
        source_page = parse(decoded.text, document.url)
        # Sub-requests follow the page as served, within the fetch budget; rendering has its own.
        resources = gather(fetcher, document, source_page)
    finally:
        fetcher.close()
    page, rendering, rendered = source_page, {"document": "source"}, None
    if settings.REPORTS_RENDER == "auto" and not _chromium_installed():
        rendering = {"document": "source", "render_skipped": "Chromium is not installed (REPORTS_RENDER=auto)"}
    elif settings.REPORTS_RENDER:
        page, rendering, rendered = _rendered_page(document, source_page)
    context = Context(
        url, document, decoded, page, resources, config.thresholds(), source_page=source_page, rendered=rendered
    )
    results = run_checks(context)
    bands = config.rating_bands()
    weights = config.importance_weights()
    score = scoring.score(results, weights, bands)
    timing = {
        "ttfb_ms": document.ttfb_ms,
        "total_ms": document.total_ms,
        "redirects": len(document.redirects),
        "subrequests": resources.count,
        "analysis_ms": round((time.monotonic() - started) * 1000),
    }
    return AnalysisResult(
        url=url,
        final_url=document.url,
        score=score,
        rating=scoring.rating(score, bands),
        scores=scoring.category_scores(results, weights, bands),
        results=results,
        timing=timing,
        rendering=rendering,
        links=[link.url for link in source_page.links],
    )


def _chromium_installed() -> bool:
    from reports.analysis.rendering import chromium_installed

    return chromium_installed()


def _rendered_page(document, source_page: ParsedPage) -> tuple[ParsedPage, dict, dict | None]:
    """The rendered document's facts, or the source's when rendering fails (the report says which)."""
    from reports.analysis.rendering import RenderError, render

    try:
        rendered = render(document)
    except RenderError as exc:
        return source_page, {"document": "source", "render_error": str(exc)}, None
    rendering = {
        "document": "rendered",
        "render_ms": rendered.elapsed_ms,
        "requests": rendered.requests,
        "refused": rendered.refused,
        "memory_mb": round(rendered.peak_memory_kib / 1024),
        "dom_nodes": {"source": source_page.dom_nodes, "rendered": rendered.facts.get("dom_nodes")},
        # FCP, LCP, TBT and CLS under Lighthouse's mobile profile (reports/analysis/lab.py).
        "metrics": rendered.facts.get("lab_metrics"),
    }
    return parse(rendered.html, document.url), rendering, rendered.facts
