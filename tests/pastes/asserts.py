"""How a test says "interface B refused this": status *and* body, in B's one error shape.

Modelled on Zulip's `assert_json_error(result, msg, status)`: a refusal is only right when the
client can read why, so every expected error is checked through `assert_pastes_error`.
"""

import json
import re
from html import escape

from django.http import HttpResponse


def assert_pastes_error(response: HttpResponse, status: int, message: str | re.Pattern[str]) -> str:
    """Assert `response` is B's `{"code": status, "message": message}` and return the message.

    `message` is the exact text, or a compiled pattern the whole text must match when part of it
    varies (a limit, an id).
    """
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = json.loads(response.content)
    assert set(body) == {"code", "message"}, body
    assert body["code"] == status, body
    if isinstance(message, re.Pattern):
        assert message.fullmatch(body["message"]), (message.pattern, body["message"])
    else:
        assert body["message"] == message, body["message"]
    return body["message"]


def quota_exceeded(*, limit: int, needed: int) -> str:
    """What a write over the paste quota is told."""
    return (
        f"Paste quota exceeded: your pastes may hold at most {limit} characters in total, "
        f"and this change would bring them to {needed}."
    )


# Where the site's error page (templates/error.html) says what went wrong, under the status.
ERROR_PAGE_MESSAGE = re.compile(r"<h1>(\d{3})</h1>\s*<p>(.*?)</p>", re.S)


def assert_pastes_error_page(response: HttpResponse, status: int, message: str) -> None:
    """Assert `response` is the HTML error page a browser gets from B's pages, showing `message`."""
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("text/html"), response["Content-Type"]
    assert ERROR_PAGE_MESSAGE.findall(response.content.decode()) == [(str(status), escape(message))]
