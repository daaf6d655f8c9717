"""Interface A's one error body, for the API's views and for Django itself.

Errors answer as the reference product does (Laravel): `{"message": …, "status": N}`,
with a 422 whose `message` maps each field to its messages, and two bodies without
`status`, kept as the framework writes them: 401 `{"message": "Unauthenticated."}`
and 429 `{"message": "Too Many Attempts."}`. `api_exception_handler` answers the
API's views, Django's own not-found, permission and validation errors included (a
failed analysis is not an exception: the view answers the stored report's error as
a 422); `error_response` answers for Django itself (config.views: unknown URL, bad
or oversized request, crash, service unavailable).
"""

from django.core.exceptions import ObjectDoesNotExist, ObjectNotUpdated
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpRequest, JsonResponse
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.serializers import as_serializer_error
from rest_framework.views import set_rollback

NOT_FOUND = "Resource not found."
UNAUTHENTICATED = "Unauthenticated."
TOO_MANY_ATTEMPTS = "Too Many Attempts."
STATUS_MESSAGES = {
    400: "Bad request.",
    403: "Forbidden.",
    404: NOT_FOUND,
    500: "Server error.",
    503: "Service Unavailable.",
}


def error_body(status: int, message: object) -> dict:
    return {"message": message, "status": status}


def error_response(
    request: HttpRequest, status: int, message: object = None, *, retry_after: int | None = None
) -> JsonResponse:
    """An error in A's shape, with the interface's wording for `status` unless `message` is given."""
    response = JsonResponse(
        error_body(status, STATUS_MESSAGES.get(status, "") if message is None else message), status=status
    )
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


def too_large(request: HttpRequest) -> JsonResponse:
    # A body over DATA_UPLOAD_MAX_MEMORY_SIZE is one of Django's bad requests, answered as such.
    return error_response(request, 400)


def unavailable(request: HttpRequest, *, retry_after: int | None = None) -> JsonResponse:
    return error_response(request, 503, retry_after=retry_after)


def _response(status: int, message: object, headers: dict[str, str] | None = None) -> Response:
    return Response(error_body(status, message), status=status, headers=headers)


def api_exception_handler(exc: Exception, context: dict) -> Response | None:
    """Answer an exception in interface A's error shape (None lets Django answer a 500)."""
    # ObjectNotUpdated: the record was deleted by a parallel request between read and write.
    if isinstance(exc, Http404 | ObjectDoesNotExist | ObjectNotUpdated):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(as_serializer_error(exc))
    if not isinstance(exc, exceptions.APIException):
        return None
    set_rollback()

    if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
        return Response({"message": UNAUTHENTICATED}, status=401, headers={"WWW-Authenticate": "Bearer"})
    if isinstance(exc, exceptions.Throttled):
        return Response({"message": TOO_MANY_ATTEMPTS}, status=429, headers={"Retry-After": str(int(exc.wait or 0))})
    if isinstance(exc, exceptions.ValidationError):
        detail = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        return _response(422, detail)
    if isinstance(exc, exceptions.NotFound):
        return _response(404, NOT_FOUND)
    if isinstance(exc, exceptions.ParseError):
        return _response(400, f"The request body could not be read: {exc.detail}")
    return _response(exc.status_code, str(exc.detail))
