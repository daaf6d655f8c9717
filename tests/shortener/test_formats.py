"""One request, one format (issue 20, item 10): the WSGI shortcut, the views and the error pages agree.

shortener.formats.wants_json decides for all three; before, the error pages matched
"application/json" anywhere in Accept and ignored `format=`, so a browser-like Accept got a
JSON 404 where the view answered HTML, and `?format=json` got an HTML 404 from Django.
"""

import pytest

from shortener.fastpath import links as fastpath_links
from tests.shortener.factories import ShortLinkFactory
from tests.shortener.test_redirect_shortcut import wsgi_request

pytestmark = pytest.mark.django_db

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"
VARIANTS = {
    "no accept": ("", {}),
    "accept json": ("", {"HTTP_ACCEPT": "application/json"}),
    "accept html": ("", {"HTTP_ACCEPT": "text/html"}),
    "browser": ("", {"HTTP_ACCEPT": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}),
    "html preferred, json allowed": ("", {"HTTP_ACCEPT": "text/html, application/json;q=0.1"}),
    "json preferred by weight": ("", {"HTTP_ACCEPT": "text/html;q=0.4, application/json;q=0.5"}),
    "anything": ("", {"HTTP_ACCEPT": "*/*"}),
    "_format=json": ("_format=json", {}),
    "format=json": ("format=json", {}),
    "_format=html over accept json": ("_format=html", {"HTTP_ACCEPT": "application/json"}),
    "format=html over accept json": ("format=html", {"HTTP_ACCEPT": "application/json"}),
}


def is_json(headers: dict) -> bool:
    return headers["Content-Type"].startswith("application/json")


def get(path: str, query: str, headers: dict):
    return wsgi_request(f"{path}?{query}" if query else path, HTTP_USER_AGENT=FIREFOX, **headers)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_shortcut_the_view_and_the_error_pages_answer_one_format(variant):
    query, headers = VARIANTS[variant]
    ShortLinkFactory(code="abc", url="https://lstu.fr")

    fastpath_links.local_links.clear()
    by_view = get("/s/abc", query, headers)  # not cached here yet: Django's view answers, and caches it
    by_shortcut = get("/s/abc", query, headers)  # cached: the WSGI shortcut answers (when it may)
    unknown_code = get("/s/nope", query, headers)  # the view's 404
    no_such_page = get("/s/no/such/page", query, headers)  # Django's own 404 (shortener.errors)

    wants_json = is_json(by_view[1])
    assert by_view[0] == by_shortcut[0] == (200 if wants_json else 302)
    assert is_json(by_shortcut[1]) == wants_json
    assert (unknown_code[0], is_json(unknown_code[1])) == (404, wants_json)
    assert (no_such_page[0], is_json(no_such_page[1])) == (404, wants_json)


@pytest.mark.parametrize(
    ("variant", "json_expected"),
    [
        ("no accept", False),
        ("browser", False),
        ("html preferred, json allowed", False),
        ("accept json", True),
        ("json preferred by weight", True),
        ("format=json", True),
        ("format=html over accept json", False),
    ],
)
def test_the_format_chosen_is_the_documented_one(variant, json_expected):
    query, headers = VARIANTS[variant]

    status, response_headers, _body = get("/s/no/such/page", query, headers)

    assert (status, is_json(response_headers)) == (404, json_expected)


CIRCLE = ("errors", "formats", "negotiation", "tokens", "throttling")


@pytest.mark.parametrize("module", CIRCLE)
def test_the_modules_of_the_former_import_circle_import_at_the_top_only(module):
    import ast
    import importlib
    from pathlib import Path

    source = Path(importlib.import_module(f"shortener.{module}").__file__).read_text()

    nested = [
        node.lineno
        for function in ast.walk(ast.parse(source))
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    assert nested == [], f"shortener/{module}.py imports inside a function at lines {nested}"
