"""Browser fixtures for interface A's pages: every page at desktop width and at 390 px."""

from dataclasses import dataclass, field

import pytest

from reports import tasks
from tests.browser import DESKTOP, PHONE, collect_csp_errors, overflow, sign_in


@dataclass
class Screen:
    """A browser page at one viewport width, with the Content Security Policy refusals it logged."""

    page: object
    width: int
    live_server: object
    csp_violations: list[str] = field(default_factory=list)

    def goto(self, path: str):
        return self.page.goto(self.live_server.url + path)

    def sign_in(self, user) -> None:
        sign_in(self.page.context, self.live_server, user)

    def overflow(self) -> int:
        """How many CSS pixels the page is wider than the viewport (0 when nothing sticks out)."""
        return overflow(self.page)


@pytest.fixture
def queued_only(monkeypatch):
    """Keep analyses queued, as when no worker has taken them yet; the enqueued (id, run) pairs are listed."""
    enqueued = []
    monkeypatch.setattr(tasks, "enqueue_analysis", lambda report: enqueued.append((report.pk, report.analysis_run)))
    return enqueued


@pytest.fixture(params=[DESKTOP, PHONE], ids=["desktop", "390px"])
def screen(request, browser, live_server):
    context = browser.new_context(viewport=request.param)
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield Screen(page, request.param["width"], live_server, collect_csp_errors(page))
    context.close()
