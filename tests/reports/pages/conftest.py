"""Browser fixtures for interface A's pages: every page at desktop width and at 390 px."""

from dataclasses import dataclass, field

import pytest
from django.conf import settings
from django.test import Client

from reports import tasks

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "mobile": {"width": 390, "height": 844}}


@dataclass
class Screen:
    """A browser page at one viewport width, with the Content Security Policy violations it logged."""

    page: object
    width: int
    base_url: str
    csp_violations: list[str] = field(default_factory=list)

    def goto(self, path: str):
        return self.page.goto(self.base_url + path)

    def sign_in(self, user) -> None:
        """Give the browser a session of `user`, as if they had signed in."""
        client = Client()
        client.force_login(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
        self.page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": self.base_url}])

    def overflow(self) -> int:
        """How many CSS pixels the page is wider than the viewport (0 when nothing sticks out)."""
        return self.page.evaluate("document.documentElement.scrollWidth") - self.width


@pytest.fixture
def queued_only(monkeypatch):
    """Keep analyses queued, as when no worker has taken them yet; the enqueued (id, run) pairs are listed."""
    enqueued = []
    monkeypatch.setattr(tasks, "enqueue_analysis", lambda *, report_id, run: enqueued.append((report_id, run)))
    return enqueued


@pytest.fixture(params=list(VIEWPORTS))
def screen(request, browser, live_server):
    context = browser.new_context(viewport=VIEWPORTS[request.param])
    page = context.new_page()
    page.set_default_timeout(10_000)
    screen = Screen(page, VIEWPORTS[request.param]["width"], live_server.url)

    def record_csp_violation(message) -> None:
        if "Content Security Policy" in message.text:
            screen.csp_violations.append(message.text)

    page.on("console", record_csp_violation)
    yield screen
    context.close()
