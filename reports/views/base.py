"""What every interface A endpoint shares: key authentication, the rate limit and the error shape.

Errors answer as the reference product does (Laravel): `{"message": …, "status": N}`,
with a 422 whose `message` maps each field to its messages, and two bodies without
`status`, kept as the framework writes them: 401 `{"message": "Unauthenticated."}`
and 429 `{"message": "Too Many Attempts."}`. The API always answers JSON, whatever
the Accept header says (the reference redirects to a login page without
`Accept: application/json`; an API-only service has none to send).
"""

from collections.abc import Callable

from django.core.exceptions import ObjectDoesNotExist, ObjectNotUpdated
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import as_serializer_error
from rest_framework.views import APIView, set_rollback

from common.parsers import StrictJSONParser
from common.renderers import FastJSONRenderer, JSONOnlyNegotiation
from reports.authentication import ApiKeyRateThrottle, ReportsApiKeyAuthentication

NOT_FOUND = "Resource not found."
UNAUTHENTICATED = "Unauthenticated."
TOO_MANY_ATTEMPTS = "Too Many Attempts."


def _error(message: object, status: int, headers: dict[str, str] | None = None) -> Response:
    return Response({"message": message, "status": status}, status=status, headers=headers)


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
        return _error(detail, 422)
    if isinstance(exc, exceptions.NotFound):
        return _error(NOT_FOUND, 404)
    if isinstance(exc, exceptions.ParseError):
        return _error(f"The request body could not be read: {exc.detail}", 400)
    return _error(str(exc.detail), exc.status_code)


class ReportsApiView(APIView):
    """Base of interface A's views (mixed into its viewsets)."""

    authentication_classes = [ReportsApiKeyAuthentication]
    permission_classes = [IsAuthenticated]
    throttle_classes = [ApiKeyRateThrottle]
    parser_classes = [StrictJSONParser, FormParser, MultiPartParser]
    renderer_classes = [FastJSONRenderer]
    content_negotiation_class = JSONOnlyNegotiation

    def get_exception_handler(self) -> Callable[[Exception, dict], Response | None]:
        return api_exception_handler

    def finalize_response(self, request: Request, response: Response, *args: object, **kwargs: object) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        rate_limit = getattr(request, "rate_limit", None)
        if rate_limit is not None:
            response["X-RateLimit-Limit"] = str(rate_limit.limit)
            response["X-RateLimit-Remaining"] = str(rate_limit.remaining)
        return response


def envelope(data: object) -> dict:
    """The reference's body for one record: `{"data": …, "status": 200}` (200 even on a 201 create)."""
    return {"data": data, "status": 200}
