"""Helpers for the Playwright tests (the `browser` and `page` fixtures are in tests/conftest.py)."""

from django.conf import settings
from django.test import Client

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def sign_in(context, live_server, user) -> None:
    """Give the browser context a session of `user`, as if they had signed in."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])


def overflow(page) -> int:
    """How many CSS pixels the page is wider than its viewport (0 when it fits)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


def collect_csp_errors(page) -> list[str]:
    """A list that fills with every CSP refusal the page logs to the console."""
    errors: list[str] = []
    page.on(
        "console",
        lambda message: (
            errors.append(message.text)
            if "Content Security Policy" in message.text or "Refused to" in message.text
            else None
        ),
    )
    return errors
