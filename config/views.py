"""Site-wide pages: the landing page, the health check, and error pages in each interface's shape."""

import sys
from types import ModuleType

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext_noop
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from drf_spectacular.views import SpectacularSwaggerSplitView
from rest_framework.authentication import SessionAuthentication

from config import __version__
from pastes import errors as pastes_errors
from reports import errors as reports_errors
from reports.tasks import analyses_unclaimed
from shortener import errors as shortener_errors


@require_safe
def landing(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "landing.html",
        {
            "pastes_create_path": f"/{settings.PASTES_PREFIX}/create" if settings.PASTES_PREFIX else "/create",
            "shortener_prefix": settings.SHORTENER_PREFIX,
        },
    )


# The English messages the interfaces' error builders give the site's error page (shortener.errors'
# STATUS_MESSAGES, which C's JSON answers on the same paths keep in English): marked here for the
# catalogs, so that templates/error.html can show them in the reader's language.
ERROR_PAGE_MESSAGES = (
    gettext_noop("Bad request."),
    gettext_noop("Forbidden."),
    gettext_noop("Not found."),
    gettext_noop("Server error."),
    gettext_noop("The service is temporarily unavailable. Please retry."),
)

# Seconds a client is asked to wait when a dependency is down.
RETRY_AFTER_SECONDS = 5


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """200 "ok"; 200 "degraded" naming what is down or stuck but answered without; 503 without the database.

    Every answer carries the service's version, so a probe also tells which release is serving.
    """
    degraded = []
    # Redis is optional at run time (common/cache.py); only a configured one can be down.
    if hasattr(cache, "ping") and not cache.ping():
        degraded.append("redis")
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        body = {"status": "unavailable", "unavailable": ["database"]} | ({"degraded": degraded} if degraded else {})
        body |= {"version": __version__}
        return JsonResponse(body, status=503, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
    # No worker claiming the analyses: reports stay queued for ever (reports.tasks.analyses_unclaimed).
    if analyses_unclaimed():
        degraded.append("analyses")
    if degraded:
        return JsonResponse({"status": "degraded", "degraded": degraded, "version": __version__})
    return JsonResponse({"status": "ok", "version": __version__})


def _under(request: HttpRequest, prefix: str) -> bool:
    return bool(prefix) and (request.path == f"/{prefix}" or request.path.startswith(f"/{prefix}/"))


def interface_errors(request: HttpRequest) -> ModuleType:
    """The errors module of the interface the path belongs to; the shortener's for every other page.

    Each of reports.errors, pastes.errors and shortener.errors offers the same three builders:
    error_response(request, status, message=None, *, retry_after=None), too_large(request) and
    unavailable(request, *, retry_after=None).
    """
    if request.path.startswith("/api/"):
        return reports_errors
    if _under(request, settings.PASTES_PREFIX):
        return pastes_errors
    return shortener_errors


# Django raises these before any interface view runs (unknown URL, oversized body,
# unexpected exception), so each answers in the shape of the interface the path belongs to.


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    errors = interface_errors(request)
    if isinstance(exception, RequestDataTooBig):
        return errors.too_large(request)
    return errors.error_response(request, 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return interface_errors(request).error_response(request, 403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return interface_errors(request).error_response(request, 404)


def server_error(request: HttpRequest) -> HttpResponse:
    # Django calls this while handling the exception: a database that cannot be reached
    # (or dropped the connection) is an outage to retry, not a bug. Django's connection
    # handling reconnects on a later request, so the service recovers without a restart.
    if isinstance(sys.exc_info()[1], OperationalError | InterfaceError):
        return interface_errors(request).unavailable(request, retry_after=RETRY_AFTER_SECONDS)
    return interface_errors(request).error_response(request, 500)


class ApiDocs(SpectacularSwaggerSplitView):
    """The API's documentation page (Swagger UI), for GET and HEAD only.

    DRF answers OPTIONS by describing the view through its renderer, here the HTML template
    renderer, which has no template for that: a 500 (TemplateDoesNotExist). The page has
    nothing to describe, so any other method is a 405 in A's shape, as under the rest of /api/.
    It reads the session, as the site's header on it shows who is signed in.
    """

    authentication_classes = [SessionAuthentication]
    http_method_names = ["get", "head"]

    def http_method_not_allowed(self, request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        response = reports_errors.error_response(request, 405, "Method Not Allowed.")
        response["Allow"] = "GET, HEAD"
        return response
