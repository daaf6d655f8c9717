"""The engine on real pages of public websites (tests/reports/corpus), served over HTTPS by the test site.

The expected verdicts were decided by reading each page's HTML, not by running the engine.
`True` means the check must pass, `False` that it must fail. Served on 127.0.0.1, pages whose
canonical names their production host pass `canonical_tag`: a copy may name its original.
"""

import pytest

from reports.analysis import analyze
from tests.reports.corpus import SOURCES

# Columns: title, meta_description, headings (an h1), language (<html lang>), doctype (<!DOCTYPE html>),
# meta_viewport (present, zoomable), charset (declared), image_keywords (every img has alt).
COLUMNS = [
    ("seo", "title"),
    ("seo", "meta_description"),
    ("seo", "headings"),
    ("seo", "language"),
    ("performance", "doctype"),
    ("miscellaneous", "meta_viewport"),
    ("miscellaneous", "charset"),
    ("seo", "image_keywords"),
]
T, F = True, False
READ = {
    # file: the eight columns above, then other verdicts read from the page
    # Its canonical names the production host: right there, and allowed from a copy.
    "backbonejs-home.html": ([T, F, F, F, T, T, T, T], {("seo", "canonical_tag"): T}),
    # Viewport: maximum-scale=1.0; user-scalable=0
    "backbone-annotated-source.html": ([T, F, T, F, T, T, T, T], {("accessibility", "zoomable"): F}),
    "backbone-todos-example.html": ([T, F, T, T, T, F, T, T], {("accessibility", "form_labels"): T}),
    "underscorejs-home.html": ([T, F, F, F, T, T, T, T], {("accessibility", "form_labels"): T}),
    "underscore-modules-docco.html": (
        [T, F, T, F, T, T, T, T],
        {("seo", "crawlable_links"): F, ("accessibility", "zoomable"): F},  # javascript:void(0), zoom blocked
    ),
    "coffeescript-v2.html": (
        [T, F, F, F, T, T, T, T],
        {("seo", "canonical_tag"): T, ("accessibility", "button_name"): F},
    ),
    "coffeescript-v1.html": ([T, F, F, F, T, T, T, T], {("seo", "canonical_tag"): T}),
    "eemr-pkgdown-home.html": ([T, T, F, T, T, T, T, T], {}),
    "eemr-pkgdown-reference.html": ([T, T, T, T, T, T, T, T], {("accessibility", "heading_order"): T}),
    "eemr-pkgdown-article.html": ([T, F, T, T, T, T, T, F], {("accessibility", "heading_order"): F}),
    "animate-style-landing.html": ([T, T, T, T, T, T, T, T], {("accessibility", "link_name"): F}),
    "hover-css-landing.html": ([T, F, T, T, T, F, T, F], {("miscellaneous", "iframes"): F}),
    "spinkit-examples.html": ([T, F, F, F, T, F, F, T], {}),
    "yesplaymusic-spa-shell.html": ([T, F, F, T, T, T, T, T], {("miscellaneous", "content_length"): F}),
    "html5-boilerplate-template.html": ([F, F, F, F, T, T, T, T], {("miscellaneous", "structured_data"): F}),
    "html5-boilerplate-404.html": ([T, F, T, T, T, T, T, T], {}),
    "matlab-published-homework.html": ([T, F, F, F, F, F, T, T], {}),  # HTML 4.01 Transitional: quirks mode
    "nginx-welcome.html": ([T, F, T, F, T, F, F, T], {}),
    "nginx-50x.html": ([T, F, T, F, T, F, F, T], {}),
    "lua-53-readme.html": ([T, F, T, F, F, F, T, T], {("miscellaneous", "deprecated_html_tags"): F}),  # <tt>
    "lua-53-contents.html": ([T, F, T, F, F, F, T, T], {}),
    # XHTML 1.0 Transitional: limited-quirks mode, a legacy doctype but not quirks mode. The search
    # field has no label, but sits in a box hidden until a script shows it (style="display: none").
    "alproj-sphinx-home.html": (
        [T, F, T, F, T, F, T, T],
        {("accessibility", "form_labels"): T, ("performance", "legacy_doctype"): F},
    ),
    "alproj-sphinx-module.html": (
        [T, F, T, F, T, F, T, T],
        {("accessibility", "form_labels"): T, ("performance", "legacy_doctype"): F},
    ),
    "pyradiomics-sphinx-source.html": ([T, F, T, T, T, T, T, T], {}),
    "tachyons-home.html": ([T, T, T, T, T, T, T, F], {}),
    "tachyons-docs-forms.html": ([T, T, F, T, T, T, T, T], {("seo", "meta_description_optimal_length"): F}),
    "tachyons-docs-flexbox.html": ([T, T, F, T, T, T, T, T], {}),
    "tachyons-component-article.html": ([T, T, T, T, T, T, T, T], {}),
}

# Clearly good, middling and poor pages, by reading them: complete pages with a title, description,
# h1, language and alt texts; real content missing its description and some alt texts or the
# viewport; pages that are barely pages (an empty template, a demo without text, a quirks-mode export).
GOOD = ["eemr-pkgdown-reference.html", "tachyons-component-article.html", "pyradiomics-sphinx-source.html"]
MIDDLING = ["eemr-pkgdown-article.html", "hover-css-landing.html", "backbone-todos-example.html"]
POOR = ["spinkit-examples.html", "html5-boilerplate-template.html", "matlab-published-homework.html"]

_results: dict[str, dict] = {}


@pytest.fixture
def corpus(tls_test_site, settings):
    # The verdicts are about the pages, not about how fast a busy test machine serves them.
    settings.REPORTS_THRESHOLDS = {"load_time_ms": 60_000}
    settings.REPORTS_FETCH_TIMEOUT = 60

    def result(file: str):
        if file not in _results:
            _results[file] = analyze(tls_test_site.url(f"/corpus/{file}", site="tls"))
        return _results[file]

    return result


def test_every_page_of_the_corpus_has_expected_verdicts():
    assert sorted(READ) == sorted(source.file for source in SOURCES)
    assert len(SOURCES) >= 20


@pytest.mark.parametrize("file", sorted(READ))
def test_the_verdicts_match_what_reading_the_page_shows(corpus, file):
    columns, others = READ[file]
    expected = {**dict(zip(COLUMNS, columns, strict=True)), **others}

    results = corpus(file).results

    actual = {check: results[check[0]][check[1]]["passed"] for check in expected}
    assert actual == expected


def test_the_score_ranks_good_middling_and_poor_pages_in_that_order(corpus):
    good = [corpus(file).score for file in GOOD]
    middling = [corpus(file).score for file in MIDDLING]
    poor = [corpus(file).score for file in POOR]

    assert min(good) > max(middling)
    assert min(middling) > max(poor)
    assert {corpus(file).rating for file in GOOD} == {"good"}
    assert {corpus(file).rating for file in POOR} <= {"decent", "bad"}
