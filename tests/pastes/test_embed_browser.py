"""Embeds and discussions in a real browser (issue 47, items 4 and 5).

A second local server, on another port (another origin, and the same site, where SameSite
cookies alone would still be sent), serves a page that embeds a paste both ways: it renders,
highlighted, and no cookie of ours goes with any request. An encrypted paste's discussion is
written and read in the browser while the database holds only envelopes.
"""

from urllib.parse import urlsplit

import pytest

from pastes.models import Comment
from tests.browser import DESKTOP, PHONE, collect_csp_errors, overflow, sign_in
from tests.pastes.e2e import decrypt, encrypt
from tests.pastes.factories import PasteFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CODE = "import os\n\n\ndef cwd():\n    return os.getcwd()\n"


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "390px"])
def test_another_site_embeds_a_paste_both_ways_without_our_cookies(browser, live_server, other_site, user, viewport):
    paste = PasteFactory(owner=user, name="Current directory", content=CODE, syntax="python")
    ours = live_server.url.replace("localhost", "127.0.0.1")  # the same host as the other site: same-site
    other_site.pages["html"] = f"""<!doctype html><html lang="en"><head><title>My blog</title></head><body>
<h1>My blog</h1>
<script src="{ours}/pastes/{paste.id}.js" crossorigin="anonymous"></script>
<iframe id="plain" src="{ours}/pastes/{paste.id}/embed" sandbox="allow-popups allow-popups-to-escape-sandbox"
        credentialless referrerpolicy="no-referrer" title="paste" style="width:100%;height:200px"></iframe>
</body></html>"""
    context = browser.new_context(viewport=viewport)
    sign_in(context, live_server, user)  # a session of ours in this browser, which must not be sent
    context.add_cookies([{"name": "sessionid", "value": "x", "url": ours}])  # and one for the host it is served on
    page = context.new_page()
    page.set_default_timeout(10_000)
    csp_errors = collect_csp_errors(page)
    to_us: list[dict] = []
    set_cookies: list[str] = []
    our_host = urlsplit(ours).netloc

    def on_request(request) -> None:
        if urlsplit(request.url).netloc == our_host:
            to_us.append({"url": request.url, "headers": request.all_headers()})

    def on_response(response) -> None:
        if urlsplit(response.url).netloc == our_host and "set-cookie" in response.all_headers():
            set_cookies.append(response.url)

    page.on("request", on_request)
    page.on("response", on_response)

    page.goto(f"http://127.0.0.1:{other_site.server_port}/")

    frames = page.locator("iframe")
    assert frames.count() == 2  # the script wrote one, and the page's own
    written = page.frame_locator("iframe >> nth=0")
    plain = page.frame_locator("#plain")
    for frame in (written, plain):
        frame.locator(".highlight .kn").first.wait_for()
        assert frame.locator(".highlight .kn").first.inner_text() == "import"
        assert frame.get_by_role("link", name="Current directory").get_attribute("target") == "_blank"
    assert frames.first.get_attribute("sandbox") == "allow-popups allow-popups-to-escape-sandbox"
    assert page.evaluate("document.scripts.length") == 1  # ours wrote an iframe and nothing else in the host page
    assert overflow(page) == 0
    assert csp_errors == []
    assert {urlsplit(item["url"]).path for item in to_us} >= {f"/pastes/{paste.id}.js", f"/pastes/{paste.id}/embed"}
    assert [item["url"] for item in to_us if "cookie" in item["headers"]] == []
    assert set_cookies == []
    context.close()


def test_a_private_paste_shows_why_in_the_frame(browser, live_server, other_site, user):
    paste = PasteFactory(owner=user, content=CODE, burn_after_read=True)
    other_site.pages["html"] = f"""<!doctype html><html lang="en"><head><title>x</title></head><body>
<iframe src="{live_server.url}/pastes/{paste.id}/embed" sandbox title="paste"></iframe></body></html>"""
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{other_site.server_port}/")
    message = page.frame_locator("iframe").get_by_test_id("embed-error")
    assert (
        message.inner_text() == "This paste burns after reading, so it cannot be embedded: its first reader deletes it."
    )
    page.close()


def test_an_encrypted_discussion_is_written_and_read_in_the_browser(browser, live_server, user):
    content, key = encrypt("the plan")
    paste = PasteFactory(owner=user, name="Plan", content=content, encrypted=True, discussion=True)
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.set_default_timeout(10_000)
    csp_errors = collect_csp_errors(page)
    page.goto(f"{live_server.url}/pastes/{paste.id}#key={key}")
    page.get_by_test_id("e2e-plain").wait_for()

    page.get_by_label("Nickname (optional)").fill("Ann")
    page.get_by_label("Your comment").fill("meet at noon")
    page.get_by_role("button", name="Comment", exact=True).click()
    page.get_by_text("Comment posted.").wait_for()
    page.locator(".comment-text.decrypted").first.wait_for()
    assert page.get_by_test_id("comment-text").inner_text() == "meet at noon"
    assert page.get_by_test_id("comment-author").inner_text() == "Ann"

    page.get_by_text("Reply", exact=True).first.click()
    page.get_by_label("Your reply").fill("see you there")
    page.get_by_role("button", name="Reply", exact=True).click()
    page.get_by_text("Comment posted.").wait_for()
    page.locator("[data-testid=reply] .comment-text.decrypted").wait_for()
    assert page.locator("[data-testid=reply] .comment-text").inner_text() == "see you there"
    assert overflow(page) == 0
    assert csp_errors == []

    rows = list(Comment.objects.order_by("pk"))
    assert [row.encrypted for row in rows] == [True, True]
    assert all("noon" not in row.text and "there" not in row.text for row in rows)
    assert [decrypt(row.text, key) for row in rows] == ["meet at noon", "see you there"]
    assert rows[1].parent_id == rows[0].pk
    context.close()
