"""Interface C's errors: the one failure its services and views raise, and its one error body.

A failure answers `{"success": false, "msg": "..."}` to JSON clients (Lstu's shape) and a
page to browsers: the shortener's message page for its own views, the site's error page
for Django's own failures (config.views: unknown URL, bad request, crash, unavailable).
"""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext_noop

from shortener.formats import UNREADABLE_BODY, wants_json
from shortener.messages import Message

# English in JSON, the reader's language on the error page (shortener.messages).
UNAVAILABLE = Message(gettext_noop("The service is temporarily unavailable. Please retry."))
STATUS_MESSAGES = {
    400: Message(gettext_noop("Bad request.")),
    403: Message(gettext_noop("Forbidden.")),
    404: Message(gettext_noop("Not found.")),
    500: Message(gettext_noop("Server error.")),
    503: UNAVAILABLE,
}


class Failure(Exception):
    """An operation failed in a way the client should be told about, with its HTTP status."""

    def __init__(self, msg: str, status: int = 400, *, retry_after: int | None = None) -> None:
        super().__init__(msg)
        self.msg = msg
        self.status = status
        self.retry_after = retry_after


def error_body(message: str) -> dict:
    return {"success": False, "msg": message}


def _answer(
    request: HttpRequest,
    status: int,
    message: str,
    *,
    as_json: bool,
    template: str,
    context: dict,
    retry_after: int | None,
) -> HttpResponse:
    if as_json:
        response: HttpResponse = JsonResponse(error_body(message), status=status)
    else:
        response = render(request, template, context, status=status)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


def failure_response(request: HttpRequest, failure: Failure) -> HttpResponse:
    """How the shortener's views answer a Failure: JSON or its message page, per formats.wants_json."""
    return _answer(
        request,
        failure.status,
        failure.msg,
        as_json=wants_json(request),
        template="shortener/message.html",
        context={"msg": failure.msg},
        retry_after=failure.retry_after,
    )


def error_response(
    request: HttpRequest, status: int, message: str | None = None, *, retry_after: int | None = None
) -> HttpResponse:
    """An error for Django's own failures, with C's wording for `status` unless `message` is given."""
    message = STATUS_MESSAGES.get(status, "") if message is None else message
    # Not a posted form's field: the body may be the very thing that failed to be read.
    as_json = wants_json(request, read_body=False)
    context = {"status": status, "message": message}
    return _answer(
        request, status, message, as_json=as_json, template="error.html", context=context, retry_after=retry_after
    )


def too_large(request: HttpRequest) -> HttpResponse:
    # A body over DATA_UPLOAD_MAX_MEMORY_SIZE is one of Django's bad requests, answered as such.
    return error_response(request, 400)


def unavailable(request: HttpRequest, *, retry_after: int | None = None) -> HttpResponse:
    # The outage is elsewhere, so a posted form's wish counts too, if the form can be read.
    message = STATUS_MESSAGES[503]
    try:
        as_json = wants_json(request)
    except UNREADABLE_BODY:
        as_json = wants_json(request, read_body=False)
    context = {"status": 503, "message": message}
    return _answer(
        request, 503, message, as_json=as_json, template="error.html", context=context, retry_after=retry_after
    )
