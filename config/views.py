"""Site-wide pages: the landing page, the health check, and error pages in each interface's shape."""

from django.conf import settings
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe


@require_safe
def landing(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "landing.html",
        {
            "pastes_prefix": settings.PASTES_PREFIX,
            "shortener_prefix": settings.SHORTENER_PREFIX,
        },
    )


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        return JsonResponse({"status": "unavailable"}, status=503)
    return JsonResponse({"status": "ok"})


def _under(request: HttpRequest, prefix: str) -> bool:
    return bool(prefix) and (request.path == f"/{prefix}" or request.path.startswith(f"/{prefix}/"))


def error_response(request: HttpRequest, status: int, message: str) -> HttpResponse:
    """Answer an error in the shape of the interface the path belongs to.

    Django raises these before any interface view runs (unknown URL, oversized
    body, unexpected exception), so the shapes each interface promises are kept here too.
    """
    if request.path.startswith("/api/"):
        return JsonResponse({"message": message, "status": status}, status=status)
    if _under(request, settings.PASTES_PREFIX):
        return JsonResponse({"code": status, "message": message}, status=status)
    # Only the query string: the body may be the very thing that failed to parse.
    wants_json = request.GET.get("_format") == "json" or "application/json" in request.headers.get("Accept", "")
    if wants_json:
        return JsonResponse({"success": False, "msg": message}, status=status)
    return render(request, "error.html", {"status": status, "message": message}, status=status)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(request, 400, "Bad request.")


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(request, 403, "Forbidden.")


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    message = "Resource not found." if request.path.startswith("/api/") else "Not found."
    return error_response(request, 404, message)


def server_error(request: HttpRequest) -> HttpResponse:
    return error_response(request, 500, "Server error.")
