"""Several files and revisions in Chromium (issue 47): a three-file paste made on the form, edited, its diff;
and the same sealed end to end, every file and filename encrypted by the browser."""

import io
import zipfile

import pytest

from pastes.encryption import is_envelope
from pastes.models import Paste, PasteFile, PasteRevision
from tests.browser import DESKTOP, PHONE, collect_csp_errors, overflow, sign_in
from tests.pastes.e2e import decrypt

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FILES = [("main.py", "print('hello')\n"), ("README.md", "# Read me\n"), ("notes.txt", "a note\n")]


@pytest.fixture(params=[DESKTOP, PHONE], ids=["desktop", "390px"])
def screen(request, browser, live_server, user):
    context = browser.new_context(viewport=request.param, accept_downloads=True)
    sign_in(context, live_server, user)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.csp_errors = collect_csp_errors(page)
    yield page
    context.close()


def fill_three_files(page) -> None:
    page.get_by_label("Name", exact=True).fill("Three files")
    page.get_by_label("Content", exact=True).fill(FILES[0][1])
    page.get_by_label("File (optional)").fill(FILES[0][0])
    for number, (filename, content) in enumerate(FILES[1:], start=2):
        page.get_by_role("button", name="Add another file").click()
        page.get_by_label(f"File {number}", exact=True).fill(filename)
        page.get_by_label(f"Text of file {number}").fill(content)


def test_a_three_file_paste_is_made_edited_and_its_diff_shown(screen, live_server, user):
    page = screen
    page.goto(f"{live_server.url}/pastes/new")
    fill_three_files(page)
    page.get_by_role("button", name="Create paste").click()
    page.get_by_text("Paste created.").wait_for()

    paste = Paste.objects.get(owner=user)
    assert (paste.file_count, paste.filename) == (3, "main.py")
    for filename, _content in FILES:
        assert page.get_by_role("heading", name=filename).is_visible()
    assert page.get_by_role("link", name="Raw file 2").get_attribute("href") == f"/pastes/paste/@{paste.id}/files/2/raw"
    with page.expect_download() as download:
        page.get_by_role("link", name="Download all (zip)").click()
    archive = zipfile.ZipFile(io.BytesIO(download.value.path().read_bytes()))
    assert archive.namelist() == [filename for filename, _content in FILES]
    assert overflow(page) == 0

    page.get_by_role("link", name="Edit").click()
    page.get_by_label("Content", exact=True).fill("print('hello, world')\n")
    page.get_by_label("Text of file 3").fill("")
    page.get_by_label("File 3", exact=True).fill("")
    page.get_by_role("button", name="Save").click()
    page.get_by_text("Paste saved.").wait_for()
    assert PasteFile.objects.filter(paste=paste).count() == 1
    assert PasteRevision.objects.get(paste=paste).changed == ["main.py", "notes.txt"]

    page.get_by_role("link", name="History").click()
    diff = page.get_by_test_id("diff")
    diff.wait_for()
    text = diff.inner_text()
    assert "-print('hello')" in text and "+print('hello, world')" in text
    assert "--- a/notes.txt" in text and "+++ /dev/null" in text
    assert overflow(page) == 0
    assert page.csp_errors == []


def test_an_encrypted_three_file_paste_seals_every_file_and_filename(screen, live_server, user):
    page = screen
    page.goto(f"{live_server.url}/pastes/new")
    fill_three_files(page)
    page.get_by_label("Encrypt in my browser").check()
    page.get_by_role("button", name="Create paste").click()
    page.get_by_text("Paste created.").wait_for()

    key = page.url.split("#key=")[1]
    paste = Paste.objects.get(owner=user)
    stored = [(paste.filename, paste.content), *PasteFile.objects.values_list("filename", "content")]
    assert all(is_envelope(filename) and is_envelope(content) for filename, content in stored)
    assert [(decrypt(filename, key), decrypt(content, key)) for filename, content in stored] == FILES
    page.get_by_role("heading", name="README.md").wait_for()
    assert page.get_by_test_id("paste-file").nth(2).locator("pre").inner_text() == "a note\n"
    assert page.csp_errors == []
