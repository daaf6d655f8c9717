"""The WSGI shortcut: the redirect, answered in front of Django's WSGI handler (see config/wsgi.py).

Following a short link is the service's hottest path, and most of its cost was not
the redirect: Django's handler (request signals, connection checks), the session,
CSRF, auth, messages, clickjacking and CSP middleware, and URL resolution, which
walks the reports and pastes patterns first. None of that matters to a redirect.

So a plain `GET /<prefix>/<code>` (or `/<code>` on SHORTENER_HOST) of a live link
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
from collections.abc import Callable, Iterable

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.wsgi import WSGIHandler, WSGIRequest
from django.core.signals import request_finished, request_started, setting_changed
from django.http import HttpRequest, HttpResponse
from django.middleware.security import SecurityMiddleware

from shortener import fastpath
from shortener.fastpath.links import local_links
from shortener.formats import wants_json
from shortener.responses import redirect_response, success
from shortener.services.links import CODE_RE, RESERVED_CODES

logger = logging.getLogger(__name__)

JSON_QUERY = "_format=json"

type WSGIApp = Callable[[dict, Callable], Iterable[bytes]]

_security: SecurityMiddleware | None = None


def _security_middleware() -> SecurityMiddleware:
    # Built once (it reads its settings when created), and again after a settings change in tests.
    global _security
    if _security is None:
        _security = SecurityMiddleware(lambda request: HttpResponse())
    return _security


def _forget_security_middleware(**kwargs: object) -> None:
    global _security
    _security = None


setting_changed.connect(_forget_security_middleware, dispatch_uid="shortener-fastpath-security")


def short_code(request: HttpRequest) -> str | None:
    """The code of a `/<prefix>/<code>` (or `/<code>` on SHORTENER_HOST) path, else None.

    Raises DisallowedHost for a host not in ALLOWED_HOSTS, as request.get_host() does.
    """
    host = request.get_host()
    path = request.path_info
    if settings.SHORTENER_HOST and host.split(":", 1)[0].lower() == settings.SHORTENER_HOST:
        code = path[1:]
    elif settings.SHORTENER_PREFIX and path.startswith(f"/{settings.SHORTENER_PREFIX}/"):
        code = path[len(settings.SHORTENER_PREFIX) + 2 :]
    else:
        # Without a prefix the codes share the main host's paths with every other page.
        return None
    if not CODE_RE.fullmatch(code) or code.lower() in RESERVED_CODES:
        return None
    return code


def shortcut_response(environ: dict, *, may_write: bool = False) -> HttpResponse | None:
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
        code = short_code(request)
    except DisallowedHost:
        return None  # Django answers 400
    if code is None:
        return None
    to_https = security.process_request(request)
    if to_https is not None:
        return to_https
    fastpath.start()
    # This process's copies only: a miss goes to the view, which looks the code up and caches it.
    link = local_links.get(code)
    if link is None or link.is_deleted or fastpath.lifetime_over(link):
        return None  # the view answers 404 with the reason
    if link.protected:
        return None  # the view asks for its password first
    if link.max_visits is not None:
        # Its visits are counted in the database during the request, and its JSON resolve reads
        # it afresh: not on the event loop, and the view says why a refused visit is refused.
        if not may_write or wants_json(request) or _follow_limited(link, request) is not None:
            return None
        return security.process_response(request, redirect_response(link.url))
    # The views' own decision (shortener.formats); a JSON resolve is a lookup, not a visit.
    if wants_json(request):
        return security.process_response(request, success(url=link.url))
    fastpath.follow(link, request)  # without max_visits: recorded, never refused
    return security.process_response(request, redirect_response(link.url))


def _follow_limited(link: fastpath.CachedLink, request: HttpRequest) -> str | None:
    """fastpath.follow() for a link with max_visits, between the signals Django's handler sends
    around a request: they keep its database connection (CONN_MAX_AGE, health checks)."""
    request_started.send(sender=WSGIHandler, environ=request.environ)
    try:
        return fastpath.follow(link, request)
    finally:
        request_finished.send(sender=WSGIHandler)


def with_redirect_shortcut(django_application: WSGIApp) -> WSGIApp:
    """Wrap Django's WSGI application with the shortcut above; start the fast path (preload, watcher, flusher)."""
    # Now rather than at the first visit: a worker should not meet its first visitors with an
    # empty cache (each of them then goes through Django and waits for the database).
    fastpath.start()

    def application(environ: dict, start_response: Callable) -> Iterable[bytes]:
        try:
            response = shortcut_response(environ, may_write=True)
        except Exception:
            # Django's handler turns errors into logged 500 pages; let it redo this request.
            logger.exception("The redirect shortcut failed; handing the request to Django.")
            response = None
        if response is None:
            return django_application(environ, start_response)
        content = response.content
        # As CommonMiddleware would add, so that the connection can be kept alive without chunking.
        headers = [*response.items(), ("Content-Length", str(len(content)))]
        start_response(f"{response.status_code} {response.reason_phrase}", headers)
        return [content]

    return application
