"""Pastes in a real browser (issue 23), at 390 px and on a desktop: sign in once, write, list, edit, fork,
download, delete; the reveal in headless Chromium; no CSP refusal, nothing wider than the screen."""

from pathlib import Path

import pytest

from pastes.models import Paste
from tests.browser import DESKTOP, PHONE, collect_csp_errors, overflow
from tests.pastes.factories import PasteFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CODE = "import os\n\n\ndef cwd():\n    return os.getcwd()\n" + "x = '" + "a" * 300 + "'\n"


@pytest.fixture(params=[DESKTOP, PHONE], ids=["desktop", "390px"])
def screen(request, browser, live_server):
    """A page of a fresh context at the size, with Playwright's own (HeadlessChrome) User-Agent."""
    context = browser.new_context(viewport=request.param, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.csp_errors = collect_csp_errors(page)
    yield page
    context.close()


def sign_in_with_the_form(page, live_server, next_path: str) -> None:
    page.goto(f"{live_server.url}{next_path}")
    assert "/accounts/login/?next=" in page.url  # sent to sign in first
    page.get_by_label("Login").fill("alice")
    page.get_by_label("Password").fill("alice-password")
    page.locator("main form").get_by_role("button", name="Sign in", exact=False).click()
    page.wait_for_url(f"{live_server.url}{next_path}")


def test_one_sign_in_opens_every_interface_and_the_header_says_who(screen, live_server, user):
    page = screen
    page.goto(live_server.url + "/")
    for name, path in (
        ("Analyse a page", "/reports/new"),
        ("New paste", "/pastes/new"),
        ("Open the URL shortener", "/s/"),
    ):
        assert page.get_by_role("link", name=name, exact=True).get_attribute("href") == path

    sign_in_with_the_form(page, live_server, "/pastes/new")

    seen = []
    for path in ("/", "/pastes/new", "/pastes/", "/reports/new", "/reports/", "/s/", "/api/docs/"):
        response = page.goto(live_server.url + path)
        assert response.status == 200, path
        assert page.get_by_test_id("signed-in-as").inner_text() == "Signed in as alice", path
        header = page.get_by_role("navigation", name="Site")
        for name in ("Reports", "Pastes", "Short links", "API docs", "Sign out"):
            assert header.get_by_role("link", name=name, exact=True).is_visible(), (path, name)
        seen.append((path, overflow(page)))
    assert [path for path, extra in seen if extra > 0] == []
    assert page.csp_errors == []


def test_a_person_writes_lists_edits_forks_downloads_and_deletes_a_paste(screen, live_server, user, other_user):
    page = screen
    theirs = PasteFactory(owner=other_user, name="Their snippet", content="SELECT 1;\n", syntax="sql")
    sign_in_with_the_form(page, live_server, "/pastes/new")

    # Bad input is shown on the form, with what was typed kept.
    page.get_by_label("Name").fill("a")
    page.get_by_label("Content").fill(CODE)
    page.evaluate("document.querySelector('#id_name').removeAttribute('minlength')")
    page.get_by_role("button", name="Create paste").click()
    page.get_by_text("The name must be between 2 and 100 characters long").wait_for()
    assert page.get_by_label("Content").input_value() == CODE
    assert not Paste.objects.filter(owner=user).exists()

    page.get_by_label("Name").fill("Current directory")
    page.get_by_label("Exposure").select_option("unlisted")
    page.get_by_role("button", name="Create paste").click()
    page.get_by_text("Paste created.").wait_for()
    paste = Paste.objects.get(owner=user)
    assert page.url == f"{live_server.url}/pastes/{paste.id}"
    assert page.get_by_test_id("language").inner_text() == "Python"  # detected
    assert (paste.content, paste.exposure) == (CODE, "unlisted")
    assert overflow(page) == 0

    with page.expect_download() as download:
        page.get_by_role("link", name="Download").click()
    assert download.value.suggested_filename == "current-directory.py"
    assert Path(download.value.path()).read_text(encoding="utf-8") == CODE

    page.get_by_role("link", name="Edit", exact=True).click()
    page.get_by_label("Name").fill("Working directory")
    page.get_by_role("button", name="Save").click()
    page.get_by_text("Paste saved.").wait_for()
    assert page.get_by_role("heading", name="Working directory").is_visible()

    page.goto(f"{live_server.url}/pastes/{theirs.id}")
    assert page.get_by_role("link", name="Edit", exact=True).count() == 0
    page.get_by_role("link", name="Fork").click()
    assert page.get_by_label("Name").input_value() == "Fork of Their snippet"
    assert page.get_by_label("Content").input_value() == "SELECT 1;\n"
    page.get_by_role("button", name="Create paste").click()
    page.get_by_text("Paste created.").wait_for()
    assert Paste.objects.filter(owner=user, name="Fork of Their snippet", content="SELECT 1;\n").exists()

    page.get_by_role("navigation", name="Pastes").get_by_role("link", name="Your pastes").click()
    rows = page.locator("table.paste-list tbody tr")
    rows.nth(1).wait_for()  # the list has loaded (counting at once raced the navigation)
    assert rows.count() == 2
    assert rows.first.get_by_role("link").first.inner_text() == "Fork of Their snippet"
    assert overflow(page) == 0

    page.get_by_role("link", name="Delete Working directory").click()
    page.get_by_role("heading", name="Delete “Working directory”?").wait_for()
    assert Paste.objects.filter(pk=paste.pk).exists()  # asked first
    page.get_by_role("button", name="Delete the paste").click()
    page.get_by_text("Paste “Working directory” deleted.").wait_for()
    assert not Paste.objects.filter(pk=paste.pk).exists()
    assert page.locator("table.paste-list tbody tr").count() == 1
    assert page.csp_errors == []


def test_headless_chromium_reveals_a_burn_after_read_paste_and_is_told_why_first(screen, live_server, user):
    page = screen
    assert "HeadlessChrome" in page.evaluate("navigator.userAgent")  # the UA on the robot list
    paste = PasteFactory(owner=user, name="Wi-Fi", content="correct horse battery staple", burn_after_read=True)

    page.goto(f"{live_server.url}/pastes/{paste.id}")
    assert "it is deleted as soon as it is read" in page.get_by_role("status").first.inner_text()
    assert "correct horse" not in page.content()
    page.get_by_role("button", name="Reveal").click()

    assert page.locator(".paste-code td.code").inner_text().strip() == "correct horse battery staple"
    assert not Paste.objects.filter(pk=paste.pk).exists()
    assert overflow(page) == 0
    assert page.csp_errors == []


@pytest.mark.parametrize(("scheme", "background"), [("light", "rgb(255, 255, 255)"), ("dark", "rgb(13, 17, 23)")])
def test_the_paste_form_follows_the_systems_colour_scheme(browser, live_server, user, scheme, background):
    from tests.browser import sign_in

    context = browser.new_context(color_scheme=scheme, viewport=PHONE)
    sign_in(context, live_server, user)
    page = context.new_page()
    csp_errors = collect_csp_errors(page)
    page.goto(f"{live_server.url}/pastes/new")

    for field in ("#id_content", "#id_name", "#id_syntax"):
        assert page.evaluate(f"getComputedStyle(document.querySelector('{field}')).backgroundColor") == background
    assert overflow(page) == 0
    assert csp_errors == []
    context.close()
