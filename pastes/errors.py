"""Interface B's error contract: every failure is `{"code": <HTTP status>, "message": "..."}`."""

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import set_rollback

# DRF's stock wording, replaced where it would leave a client guessing.
MESSAGES = {
    exceptions.NotAuthenticated: "An API key is required: send it as the Authorization header.",
    exceptions.AuthenticationFailed: "Invalid or revoked API key.",
    exceptions.NotFound: "Not found.",
    exceptions.PermissionDenied: "You do not have permission to do this.",
}


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "payload_too_large"


class QuotaExceeded(PayloadTooLarge):
    default_code = "quota_exceeded"

    def __init__(self, *, limit: int, needed: int) -> None:
        super().__init__(
            f"Paste quota exceeded: your pastes may hold at most {limit} characters in total, "
            f"and this change would bring them to {needed}."
        )


class PasteNotFound(exceptions.NotFound):
    default_detail = "Paste not found (it may have expired, been burned after reading, or never existed)."


class UserNotFound(exceptions.NotFound):
    default_detail = "User not found."


class NotOwner(exceptions.PermissionDenied):
    default_detail = "Only the owner of this paste may change or delete it."


def first_message(detail: object) -> str:
    """The first human-readable message in a DRF error detail (string, list or dict)."""
    if isinstance(detail, dict):
        return first_message(next(iter(detail.values()), ""))
    if isinstance(detail, list):
        return first_message(detail[0]) if detail else ""
    return str(detail)


def paste_exception_handler(exc: Exception, context: dict) -> Response | None:
    if isinstance(exc, Http404):
        exc = PasteNotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()
    if not isinstance(exc, exceptions.APIException):
        return None  # a bug: config.views.server_error still answers in B's shape

    message = first_message(exc.detail)
    if isinstance(exc, exceptions.UnsupportedMediaType):
        message += " Send the body as JSON with Content-Type: application/json."
    if type(exc) in MESSAGES and message == str(type(exc).default_detail):
        message = MESSAGES[type(exc)]
    headers = {}
    if auth_header := getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = auth_header
    if wait := getattr(exc, "wait", None):
        headers["Retry-After"] = str(int(wait))
    set_rollback()
    return Response({"code": exc.status_code, "message": message}, status=exc.status_code, headers=headers)
