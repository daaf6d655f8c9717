"""Issue 47 end to end in Chromium: a three-file paste with a discussion, an attachment, an edit and
its diff, a stranger's comment, and the paste embedded on a page of another origin."""

from urllib.parse import urlsplit

import pytest

from pastes.models import Attachment, Comment, Paste, PasteRevision
from tests.browser import DESKTOP, collect_csp_errors, overflow, sign_in
from tests.pastes.attachment_fixtures import PDF_BYTES, use_filesystem_storage

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FILES = [("main.py", "print('hello')\n"), ("README.md", "# Read me\n"), ("notes.txt", "a note\n")]


def test_a_paste_of_three_files_is_attached_to_edited_discussed_and_embedded(
    browser, live_server, other_site, user, settings, tmp_path
):
    use_filesystem_storage(settings, tmp_path / "attachments")
    (tmp_path / "booking.pdf").write_bytes(PDF_BYTES)
    owner = browser.new_context(viewport=DESKTOP)
    sign_in(owner, live_server, user)
    page = owner.new_page()
    page.set_default_timeout(10_000)
    csp_errors = collect_csp_errors(page)

    # Three files, with a discussion.
    page.goto(f"{live_server.url}/pastes/new")
    page.get_by_label("Name", exact=True).fill("Trip")
    page.get_by_label("Content", exact=True).fill(FILES[0][1])
    page.get_by_label("File (optional)").fill(FILES[0][0])
    for number, (filename, content) in enumerate(FILES[1:], start=2):
        page.get_by_role("button", name="Add another file").click()
        page.get_by_label(f"File {number}", exact=True).fill(filename)
        page.get_by_label(f"Text of file {number}").fill(content)
    page.get_by_label("Open a discussion").check()
    page.get_by_role("button", name="Create paste").click()
    page.get_by_text("Paste created.").wait_for()
    paste = Paste.objects.get(owner=user)
    assert (paste.file_count, paste.discussion) == (3, True)

    # An attachment.
    page.get_by_label("Attach a file").set_input_files(tmp_path / "booking.pdf")
    page.get_by_role("button", name="Attach", exact=True).click()
    page.get_by_text("Attached “booking.pdf”.").wait_for()

    # An edit of the first file, and the history's diff.
    page.get_by_role("link", name="Edit").click()
    page.get_by_label("Content", exact=True).fill("print('hello, world')\n")
    page.get_by_role("button", name="Save").click()
    page.get_by_text("Paste saved.").wait_for()
    page.get_by_role("link", name="History").click()
    diff = page.get_by_test_id("diff")
    diff.wait_for()
    assert "-print('hello')" in diff.inner_text() and "+print('hello, world')" in diff.inner_text()
    assert overflow(page) == 0
    assert csp_errors == []
    owner.close()

    # A stranger reads it, downloads the attachment and comments.
    stranger = browser.new_context(viewport=DESKTOP, accept_downloads=True)
    page = stranger.new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/pastes/{paste.id}")
    for filename, _content in FILES:
        assert page.get_by_role("heading", name=filename).is_visible()
    with page.expect_download() as download:
        page.get_by_role("link", name="booking.pdf").click()
    assert download.value.path().read_bytes() == PDF_BYTES
    page.get_by_label("Nickname (optional)").fill("Ann")
    page.get_by_label("Your comment").fill("Which train?")
    page.get_by_role("button", name="Comment", exact=True).click()
    page.get_by_text("Comment posted.").wait_for()
    assert page.get_by_test_id("comment-text").inner_text() == "Which train?"
    stranger.close()

    # Another site embeds it: every file, and no cookie of ours goes with the requests.
    ours = live_server.url.replace("localhost", "127.0.0.1")
    other_site.pages["html"] = f"""<!doctype html><html lang="en"><head><title>Blog</title></head><body>
<script src="{ours}/pastes/{paste.id}.js" crossorigin="anonymous"></script></body></html>"""
    visitor = browser.new_context(viewport=DESKTOP)
    sign_in(visitor, live_server, user)  # the owner's own browser: still a stranger's view in the embed
    visitor.add_cookies([{"name": "sessionid", "value": "x", "url": ours}])  # and a cookie for the embed's host
    page = visitor.new_page()
    page.set_default_timeout(10_000)
    cookies_sent = []
    page.on(
        "request",
        lambda request: (
            cookies_sent.append(request.url)
            if urlsplit(request.url).netloc == urlsplit(ours).netloc and "cookie" in request.all_headers()
            else None
        ),
    )
    page.goto(f"http://127.0.0.1:{other_site.server_port}/")
    embed = page.frame_locator("iframe")
    for filename, _content in FILES:
        embed.get_by_role("heading", name=filename).wait_for()
    assert "hello, world" in embed.locator("main").inner_text()
    assert cookies_sent == []
    visitor.close()

    assert list(Attachment.objects.filter(paste=paste).values_list("filename", flat=True)) == ["booking.pdf"]
    assert PasteRevision.objects.filter(paste=paste).count() == 1
    assert list(Comment.objects.filter(paste=paste).values_list("nickname", "text")) == [("Ann", "Which train?")]
