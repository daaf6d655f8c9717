"""How a test says "interface C refused this": status *and* body, in C's error shape.

Modelled on Zulip's `assert_json_error(result, msg, status)`. C answers a JSON client with Lstu's
`{"success": false, "msg": "..."}` and a browser with a page showing the message (the shortener's
own pages in an alert, Django's own failures on the site's error page); the response's
Content-Type says which one the client was given, and the test says which one it expects.
"""

import json
import re
from html import escape

from django.http import HttpResponse


def _matches(message: str | re.Pattern[str], text: str) -> bool:
    return bool(message.fullmatch(text)) if isinstance(message, re.Pattern) else text == message


def assert_shortener_error(response: HttpResponse, status: int, message: str | re.Pattern[str]) -> str:
    """Assert `response` is C's JSON `{"success": false, "msg": message}` with `status`; return the message.

    `message` is the exact text, or a compiled pattern the whole text must match.
    """
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = json.loads(response.content)
    assert set(body) == {"success", "msg"}, body
    assert body["success"] is False, body
    assert _matches(message, body["msg"]), (message, body["msg"])
    return body["msg"]


# Where C's pages put an error: the shortener's alert, or the site error page's paragraph.
HTML_MESSAGE = re.compile(r'<p class="alert error" role="alert">(.*?)</p>|<h1>\d{3}</h1>\s*<p>(.*?)</p>', re.S)


def assert_shortener_error_page(response: HttpResponse, status: int, message: str | re.Pattern[str]) -> str:
    """Assert `response` is the HTML page a browser gets for a refusal: `status`, and `message` shown.

    `message` is the text as the user reads it (unescaped); a pattern is matched against it escaped.
    """
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("text/html"), response["Content-Type"]
    page = response.content.decode()
    shown = [alert or paragraph for alert, paragraph in HTML_MESSAGE.findall(page)]
    expected = message if isinstance(message, re.Pattern) else re.compile(re.escape(escape(message)))
    assert any(expected.fullmatch(text.strip()) for text in shown), (message, shown)
    return next(text for text in shown if expected.fullmatch(text.strip()))


def any_number(template: str) -> re.Pattern[str]:
    """A message template (shortener.messages) with any whole number where its fields go: a wait in seconds."""
    return re.compile(re.sub(r"\\\{\w+\\\}", r"\\d+", re.escape(template)))
