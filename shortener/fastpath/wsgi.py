"""The WSGI shortcut: the redirect, answered in front of Django's WSGI handler (see config/wsgi.py).

Following a short link is the service's hottest path, and most of its cost was not
the redirect: Django's handler (request signals, connection checks), the session,
CSRF, auth, messages, clickjacking and CSP middleware, and URL resolution, which
walks the reports and pastes patterns first. None of that matters to a redirect.

So a plain `GET /<prefix>/<code>` (or `/<code>` on a host of SHORTENER_DOMAINS) of a live link
already in this process's lookup cache is answered here: the host is validated,
SecurityMiddleware's redirect to HTTPS and its headers apply, the visit goes into the
buffer, and a 302 (301) goes out without touching the database; with `?_format=json`
(alone) or an Accept preferring JSON (shortener.formats decides, as for the views), the
JSON resolve goes out instead. A link with max_visits has its visit counted in the database
during the request: only in a request thread (config.wsgi; on the event loop, config.front
hands it to one), and its refusal and JSON resolve are the view's. Anything else — HEAD,
other query strings, a code not cached yet (the view looks it up and caches it), unknown or
deleted codes, codes spelled like a page, counting during the request
(SHORTENER_VISIT_FLUSH_SECONDS=0), an invalid host — goes to Django as before.
"""

import logging
from collections import OrderedDict
from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import NamedTuple

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.wsgi import WSGIHandler, WSGIRequest
from django.core.signals import request_finished, request_started, setting_changed
from django.http import HttpRequest, HttpResponse
from django.http.response import MAX_URL_REDIRECT_LENGTH
from django.middleware.security import SecurityMiddleware
from django.utils.encoding import iri_to_uri

from common.bots import is_preview_bot
from shortener import fastpath
from shortener.domains import DEFAULT, host_keys
from shortener.fastpath.bounded import bounded_set
from shortener.fastpath.links import local_links
from shortener.formats import wants_json
from shortener.responses import redirect_response, success
from shortener.services.links import CODE_RE, RESERVED_CODES

logger = logging.getLogger(__name__)

JSON_QUERY = "_format=json"

type WSGIApp = Callable[[dict, Callable], Iterable[bytes]]

type Headers = list[tuple[bytes, bytes]]


class Answer(NamedTuple):
    """A response ready to send: status, headers as Django names them, in bytes (Content-Length
    included), body. The ASGI front lowercases the names, as ASGI wants them."""

    status: int
    headers: Headers
    body: bytes

    def header(self, name: str) -> str | None:
        wanted = name.lower().encode("latin-1")
        return next((value.decode("latin-1") for key, value in self.headers if key.lower() == wanted), None)


def encoded(response: HttpResponse) -> Answer:
    content = response.content
    # As CommonMiddleware would add, so that the connection can be kept alive without chunking.
    headers = [*response.items(), ("Content-Length", str(len(content)))]
    raw = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers]
    return Answer(response.status_code, raw, content)


_security: SecurityMiddleware | None = None
# The Location of the redirect whose other headers every redirect_answer() reuses.
TEMPLATE_URL = "https://template.invalid/"
# (is_secure(), status) → the redirect's headers before and after its Location (redirect_answer()).
_redirect_templates: dict[tuple[bool, int | None], tuple[int, Headers, Headers]] = {}
# Host header → the host request.get_host() validated (validated_host()).
_valid_hosts: OrderedDict[str, str] = OrderedDict()
VALID_HOSTS_REMEMBERED = 64


def _security_middleware() -> SecurityMiddleware:
    # Built once (it reads its settings when created), and again after a settings change in tests.
    global _security
    if _security is None:
        _security = SecurityMiddleware(lambda request: HttpResponse())
    return _security


def _forget_settings(**kwargs: object) -> None:
    global _security
    _security = None
    _redirect_templates.clear()
    _valid_hosts.clear()


setting_changed.connect(_forget_settings, dispatch_uid="shortener-fastpath-security")


def redirect_answer(request: HttpRequest, url: str, status: int | None = None) -> Answer | None:
    """The redirect to `url` that redirect_response() and SecurityMiddleware make, without making it.

    Building that response, passing it through the middleware and encoding it took a quarter of
    the redirect's Python time (bench/README.md). Every redirect's status and headers but its
    Location depend only on the settings and on whether the request is secure, so Django's
    own classes make them once (for each of the two, and each link redirect status), and each
    visit only fills in its Location.
    None (the caller then makes the response in full) for a URL HttpResponseRedirect would
    refuse or change: one not starting with http(s):// or too long.
    """
    if not url.startswith(("https://", "http://")):
        return None
    location = iri_to_uri(url)
    if len(location) > MAX_URL_REDIRECT_LENGTH:
        return None
    key = (request.is_secure(), status)
    template = _redirect_templates.get(key)
    if template is None:
        response = redirect_response(TEMPLATE_URL, status)
        answer = encoded(_security_middleware().process_response(request, response))
        at = answer.headers.index((b"Location", TEMPLATE_URL.encode()))
        template = _redirect_templates[key] = (answer.status, answer.headers[:at], answer.headers[at + 1 :])
    code, before, after = template
    return Answer(code, [*before, (b"Location", location.encode("latin-1")), *after], b"")


def validated_host(request: HttpRequest) -> str:
    """request.get_host(), remembered per Host header: validating it against ALLOWED_HOSTS took
    7 us a redirect, and a server sees few distinct ones (cleared on a settings change).

    With X-Forwarded-Host, or without a Host header, Django's answer also depends on other
    headers and settings: it is asked each time.
    """
    meta = request.META
    raw = meta.get("HTTP_HOST")
    if raw is None or "HTTP_X_FORWARDED_HOST" in meta:
        return request.get_host()
    host = _valid_hosts.get(raw)
    if host is None:
        host = request.get_host()  # a host not allowed raises, and is not remembered
        bounded_set(_valid_hosts, raw, host, limit=VALID_HOSTS_REMEMBERED)
    return host


def short_code(request: HttpRequest) -> tuple[str, str] | None:
    """The (domain, code) of a `/<code>` path on a short domain's host or a `/<prefix>/<code>` path
    (the default domain, shortener/domains.py), else None.

    Raises DisallowedHost for a host not in ALLOWED_HOSTS, as request.get_host() does.
    """
    host = validated_host(request)
    path = request.path_info
    hosts = host_keys()
    domain = hosts.get(host.split(":", 1)[0].lower()) if hosts else None
    if domain is not None:
        code = path[1:]
    elif (prefix := settings.SHORTENER_PREFIX) and path.startswith(f"/{prefix}/"):
        domain, code = DEFAULT, path[len(prefix) + 2 :]
    else:
        # Without a prefix the codes share the main host's paths with every other page.
        return None
    if not CODE_RE.fullmatch(code) or code.lower() in RESERVED_CODES:
        return None
    return domain, code


def shortcut_answer(environ: dict, *, may_write: bool = False) -> Answer | None:
    """The redirect (or JSON resolve) of a cached live link, or None to let Django answer.

    `may_write`: the caller is a request thread, which may wait for the database. A link with
    max_visits is then followed here too, its visit counted in the database (fastpath.follow);
    on the event loop (config.front) it goes on to a thread.
    """
    query = environ.get("QUERY_STRING")
    if environ.get("REQUEST_METHOD") != "GET" or query not in ("", None, JSON_QUERY):
        return None
    if not settings.SHORTENER_VISIT_FLUSH_SECONDS:
        return None  # counting would write to the database, which needs Django's connection handling
    # A copy: WSGIRequest writes the decoded path back into the dict it is given, and the
    # environ must reach Django's handler as the server sent it when the shortcut declines.
    request = WSGIRequest(environ.copy())
    security = _security_middleware()
    try:
        key = short_code(request)
    except DisallowedHost:
        return None  # Django answers 400
    if key is None:
        return None
    to_https = security.process_request(request)
    if to_https is not None:
        return encoded(to_https)
    fastpath.start()
    # This process's copies only: a miss goes to the view, which looks the code up and caches it.
    link = local_links.get(key)
    if link is None or link.is_deleted or link.disabled or fastpath.lifetime_over(link):
        return None  # the view answers 404 (410 when disabled) with the reason
    if link.protected:
        return None  # the view asks for its password first
    if link.preview is not None and is_preview_bot(request.META.get("HTTP_USER_AGENT", "")):
        return None  # the view shows a chat app's preview robot the link's preview page
    # Rules and forwarding, from this cached copy (issue 46); a plain link's own URL otherwise.
    url, rule = fastpath.destination(link, request) if link.rules else (link.url, "")
    if link.max_visits is not None:
        # Its visits are counted in the database during the request, and its JSON resolve reads
        # it afresh: not on the event loop, and the view says why a refused visit is refused.
        if not may_write or wants_json(request) or _follow_limited(link, request, rule) is not None:
            return None
        return encoded(security.process_response(request, redirect_response(url, link.redirect_status)))
    # The views' own decision (shortener.formats); a JSON resolve is a lookup, not a visit.
    if wants_json(request):
        return encoded(security.process_response(request, success(url=link.url)))
    answer = redirect_answer(request, url, link.redirect_status)
    if answer is None:
        return None  # the view makes (or refuses) this unusual URL's redirect
    fastpath.follow(link, request, rule=rule)  # without max_visits: recorded, never refused
    return answer


def _follow_limited(link: fastpath.CachedLink, request: HttpRequest, rule: str = "") -> str | None:
    """fastpath.follow() for a link with max_visits, between the signals Django's handler sends
    around a request: they keep its database connection (CONN_MAX_AGE, health checks)."""
    request_started.send(sender=WSGIHandler, environ=request.environ)
    try:
        return fastpath.follow(link, request, rule=rule)
    finally:
        request_finished.send(sender=WSGIHandler)


def with_redirect_shortcut(django_application: WSGIApp) -> WSGIApp:
    """Wrap Django's WSGI application with the shortcut above; start the fast path (preload, watcher, flusher)."""
    # Now rather than at the first visit: a worker should not meet its first visitors with an
    # empty cache (each of them then goes through Django and waits for the database).
    fastpath.start()

    def application(environ: dict, start_response: Callable) -> Iterable[bytes]:
        try:
            answer = shortcut_answer(environ, may_write=True)
        except Exception:
            # Django's handler turns errors into logged 500 pages; let it redo this request.
            logger.exception("The redirect shortcut failed; handing the request to Django.")
            answer = None
        if answer is None:
            return django_application(environ, start_response)
        headers = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in answer.headers]
        start_response(f"{answer.status} {HTTPStatus(answer.status).phrase}", headers)
        return [answer.body]

    return application
