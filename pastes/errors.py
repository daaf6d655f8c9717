"""Interface B's errors: the domain errors its services raise, and its one error body.

Every failure is `{"code": <HTTP status>, "message": "..."}`: `paste_exception_handler`
answers B's views, `error_response` answers for Django itself (config.views).
"""

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, JsonResponse
from django.utils.translation import gettext_noop
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import set_rollback

# DRF's stock wording, replaced where it would leave a client guessing.
MESSAGES = {
    exceptions.NotAuthenticated: "An API key is required: send it as the Authorization header.",
    exceptions.AuthenticationFailed: "Invalid or revoked API key.",
    exceptions.NotFound: "Not found.",
    exceptions.PermissionDenied: "You do not have permission to do this.",
}


class PastesError(Exception):
    """A domain error of interface B, raised by its services; `status` is the HTTP answer it maps to."""

    status = 400
    message = ""

    def __init__(self, message: str | None = None) -> None:
        self.message = message or self.message
        super().__init__(self.message)


class PayloadTooLarge(PastesError):
    status = 413
    message = gettext_noop("The request body is too large.")


class QuotaExceeded(PayloadTooLarge):
    def __init__(self, *, limit: int, needed: int) -> None:
        self.limit, self.needed = limit, needed
        super().__init__(
            f"Paste quota exceeded: your pastes may hold at most {limit} characters in total, "
            f"and this change would bring them to {needed}."
        )


class InvalidText(PastesError):
    message = gettext_noop("The body must be UTF-8 text: it is the paste's content.")


class PasteNotFound(PastesError):
    status = 404
    message = gettext_noop("Paste not found (it may have expired, been burned after reading, or never existed).")


class UserNotFound(PastesError):
    status = 404
    message = gettext_noop("User not found.")


class NotOwner(PastesError):
    status = 403
    message = gettext_noop("Only the owner of this paste may change or delete it.")


class NotAnEnvelope(PastesError):
    def __init__(self) -> None:
        from pastes.encryption import ENVELOPE_MESSAGE

        super().__init__(ENVELOPE_MESSAGE)


class DiscussionBurns(PastesError):
    message = gettext_noop("A paste cannot both burn after reading and take comments: choose one.")


class PasswordRequired(PastesError):
    status = 401
    message = gettext_noop("This paste is protected by a password: send it in the X-Paste-Password header.")


class WrongPassword(PastesError):
    status = 403
    message = gettext_noop("Wrong password for this paste.")


class TooManyPasswordAttempts(PastesError):
    status = 429

    def __init__(self, *, retry_after: int) -> None:
        self.retry_after = retry_after
        super().__init__(
            f"Too many wrong passwords for this paste from your address: try again in {retry_after} seconds."
        )


class TooManyPasswordChecks(PastesError):
    status = 429

    def __init__(self, *, limit: int, period: str, retry_after: int) -> None:
        self.retry_after = retry_after
        super().__init__(
            f"Too many passwords checked for your address: at most {limit} {period}, right or wrong, "
            f"whatever the paste; try again in {retry_after} seconds."
        )


UNAVAILABLE = "The service is temporarily unavailable."
# What Django's own failures (config.views) say in B's shape.
STATUS_MESSAGES = {
    400: "Bad request.",
    403: "Forbidden.",
    404: "Not found.",
    413: PayloadTooLarge.message,
    500: "Server error.",
    503: UNAVAILABLE,
}


def error_body(status: int, message: str) -> dict:
    return {"code": status, "message": message}


def error_response(
    request: HttpRequest, status: int, message: str | None = None, *, retry_after: int | None = None
) -> JsonResponse:
    """An error in B's shape, with the interface's wording for `status` unless `message` is given."""
    response = JsonResponse(
        error_body(status, STATUS_MESSAGES.get(status, "") if message is None else message), status=status
    )
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


def too_large(request: HttpRequest) -> JsonResponse:
    return error_response(request, 413)


def unavailable(request: HttpRequest, *, retry_after: int | None = None) -> JsonResponse:
    return error_response(request, 503, retry_after=retry_after)


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
    if isinstance(exc, PastesError):
        set_rollback()
        retry_after = getattr(exc, "retry_after", None)
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
        return Response(error_body(exc.status, exc.message), status=exc.status, headers=headers)
    if not isinstance(exc, exceptions.APIException):
        return None  # a bug: config.views.server_error still answers in B's shape

    message = first_message(exc.detail)
    if isinstance(exc, exceptions.UnsupportedMediaType):
        message += " Send the body as JSON with Content-Type: application/json."
        if getattr(context.get("view"), "takes_text_bodies", False):
            message += " Or send the text itself as the body, with the name in the query string (?name=...)."
    if type(exc) in MESSAGES and message == str(type(exc).default_detail):
        message = MESSAGES[type(exc)]
    headers = {}
    if auth_header := getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = auth_header
    if wait := getattr(exc, "wait", None):
        headers["Retry-After"] = str(int(wait))
    set_rollback()
    return Response(error_body(exc.status_code, message), status=exc.status_code, headers=headers)
