"""Assertions on interface A's answers: an error is its status *and* its body, in A's shape.

Modelled on Zulip's `assert_json_error(result, msg, status)`: a test that expects an error
says which one, so a 404 from a missing route cannot pass for a 404 from a hidden report.
"""

from typing import Any

from reports.errors import STATUS_MESSAGES, TOO_MANY_ATTEMPTS, UNAUTHENTICATED

# The two bodies Laravel writes without `status` (see reports/errors.py).
_WITHOUT_STATUS = {401: UNAUTHENTICATED, 429: TOO_MANY_ATTEMPTS}
_DEFAULT = object()


class StartsWith(str):
    """A message that begins with the given text (for messages that end in a variable reason)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and other.startswith(self)

    __hash__ = str.__hash__

    def __repr__(self) -> str:
        return f"StartsWith({str.__repr__(self)})"


class Fields:
    """A 422 message naming exactly these fields, whatever their messages say."""

    def __init__(self, *names: str) -> None:
        self.names = set(names)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, dict) and set(other) == self.names

    def __repr__(self) -> str:
        return f"Fields({', '.join(sorted(self.names))})"


def assert_reports_error(response, status: int, message: Any = _DEFAULT) -> dict:
    """`response` is interface A's error `status` with `message` (by default the interface's wording).

    The body is `{"message": …, "status": N}`, except the framework's 401 "Unauthenticated."
    and 429 "Too Many Attempts.", which are `{"message": …}` alone. Returns the body.
    """
    assert response.status_code == status, (response.status_code, response.content[:500])
    assert response["Content-Type"] == "application/json", response["Content-Type"]
    if message is _DEFAULT:
        message = _WITHOUT_STATUS.get(status) or STATUS_MESSAGES[status]
    # Only the framework's own two bodies leave out `status`; A's views write it on every other.
    without_status = isinstance(message, str) and _WITHOUT_STATUS.get(status) == message
    expected = {"message": message} if without_status else {"message": message, "status": status}
    body = response.json()
    assert body == expected
    return body


def assert_error_page(response, status: int, message: str) -> None:
    """`response` is the site's error page for `status` (report pages answer Django's errors with it)."""
    assert response.status_code == status, (response.status_code, response.content[:500])
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert f"<title>{status} · Webtools</title>" in html
    assert f"<h1>{status}</h1>\n<p>{message}</p>" in html


def assert_method_not_allowed(response, allowed: str) -> None:
    """A report page's 405: no body, and the Allow header names the methods the page takes."""
    assert response.status_code == 405, (response.status_code, response.content[:500])
    assert response["Allow"] == allowed
    assert response.content == b""
