"""Importing links in a real browser: the page shows the import's progress, then its report."""

import time

import pytest

from shortener.models import ShortLink
from shortener.services import transfer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LINES = 60


def test_large_import_shows_progress_then_the_report(browser, live_server, user, monkeypatch, tmp_path):
    # Slowed down and reported often, so that the page's polls land while the import runs.
    monkeypatch.setattr(transfer, "PROGRESS_EVERY", 5)
    import_one = transfer._import_one

    def slow_import_one(*args, **kwargs):
        time.sleep(0.05)
        return import_one(*args, **kwargs)

    monkeypatch.setattr(transfer, "_import_one", slow_import_one)
    csv_file = tmp_path / "links.csv"
    csv_file.write_text("url,custom\n" + "".join(f"https://example.com/{n}\n" for n in range(LINES - 1)) + "truc\n")
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(15_000)
    base = f"{live_server.url}/s"
    page.goto(f"{base}/login")
    page.get_by_label("Login").fill("alice")
    page.get_by_label("Password").fill("alice-password")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{base}/")

    page.goto(f"{base}/stats")
    page.get_by_label("Import links").set_input_files(str(csv_file))
    progress: list[dict] = []

    def record_poll(route):
        # The page polls while the browser waits for the import's answer; Playwright cannot read
        # the page meanwhile, so the polls' answers (what the page shows) are recorded on the way.
        response = route.fetch()
        progress.append(response.json())
        route.fulfill(response=response)

    page.route("**/s/import/*", record_poll)
    page.get_by_role("button", name="Import", exact=True).click()
    page.get_by_text("Import: 59 created, 0 already there, 1 refused.").wait_for()

    assert "truc is not a valid URL." in page.content()
    assert any(0 < poll["done"] < LINES and poll["total"] == LINES for poll in progress)
    assert ShortLink.objects.filter(owner=user).count() == LINES - 1
    context.close()
