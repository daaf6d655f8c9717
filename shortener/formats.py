"""JSON or HTML: the one decision for every answer of interface C.

The views (through shortener.negotiation), the errors Django raises before or around them
(shortener.errors, for config.views) and the WSGI shortcut (shortener/fastpath/wsgi.py)
all ask `wants_json`, so one request gets one format wherever it is answered. This module
imports nothing of the shortener, so that each of those may import it.

JSON when, in this order:
1. a Bearer token was presented (shortener.tokens marks the request): a token client is a program;
2. the path ended in `.json` (or `.csv`, `.html`: then not JSON), set by `endpoint`;
3. `_format` (Lstu's parameter since 0.28) or `format` (its older clients') is in the query
   or in a posted form, and says `json`;
4. the body is JSON (`Content-Type: application/json` on a POST or PATCH);
5. `Accept` prefers `application/json` to `text/html` (turned round on the operations that
   answer JSON by default, as Lstu's `GET /stats/<code>`: JSON unless `Accept` prefers HTML).
"""

from urllib.parse import parse_qsl

from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http import HttpRequest, UnreadablePostError
from django.http.multipartparser import MultiPartParserError

JSON_TYPE = "application/json"
HTML_TYPE = "text/html"
FORMAT_FIELDS = ("_format", "format")
# Set on the request by shortener.negotiation.endpoint and shortener.tokens.
SUFFIX_ATTR = "shortener_format_suffix"
JSON_DEFAULT_ATTR = "shortener_json_by_default"
TOKEN_PRESENTED_ATTR = "shortener_token_presented"
# What reading a form body may raise.
UNREADABLE_BODY = (RequestDataTooBig, TooManyFieldsSent, UnreadablePostError, MultiPartParserError)


def _query_format(request: HttpRequest) -> str | None:
    # Not request.GET: past DATA_UPLOAD_MAX_NUMBER_FIELDS parameters it raises, and the error
    # page for that very failure must still be able to choose its format. The query string is
    # as long as the server lets a request line be, so reading it whole costs no more than
    # Django's parse would.
    query = request.META.get("QUERY_STRING", "")
    if "format=" not in query:
        return None
    found: dict[str, str] = {}
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name in FORMAT_FIELDS:
            found[name] = value  # the last one wins, as request.GET[name]
    return next((found[name] for name in FORMAT_FIELDS if name in found), None)


def has_json_body(request: HttpRequest) -> bool:
    return request.method in ("POST", "PATCH") and request.content_type == JSON_TYPE


def _form_format(request: HttpRequest) -> str | None:
    if request.method != "POST" or has_json_body(request):
        return None
    # May raise UNREADABLE_BODY: a view then answers Django's 400 (413), as its own reading would.
    form = request.POST
    return next((form[name] for name in FORMAT_FIELDS if name in form), None)


def requested_format(request: HttpRequest, *, read_body: bool = True) -> str | None:
    """The format the path suffix, the query or (with `read_body`) a posted form names, if any."""
    suffix = getattr(request, SUFFIX_ATTR, None)
    if suffix is not None:
        return suffix
    field = _query_format(request)
    if field is None and read_body:
        field = _form_format(request)
    return field


def wants_json(request: HttpRequest, *, read_body: bool = True) -> bool:
    """Whether to answer `request` in JSON (the rules above).

    `read_body=False` leaves a posted form's `_format` out: for answering a failure to read
    the body (too large, too many fields), or before the body should be read at all. Without
    it, a body that cannot be read raises (one of UNREADABLE_BODY).
    """
    if getattr(request, TOKEN_PRESENTED_ATTR, False):
        return True
    field = requested_format(request, read_body=read_body)
    if field is not None:
        return field == "json"
    if has_json_body(request):
        return True
    if not request.META.get("HTTP_ACCEPT"):
        return getattr(request, JSON_DEFAULT_ATTR, False)
    if getattr(request, JSON_DEFAULT_ATTR, False):
        return request.get_preferred_type([JSON_TYPE, HTML_TYPE]) != HTML_TYPE
    return request.get_preferred_type([HTML_TYPE, JSON_TYPE]) == JSON_TYPE
