"""Encrypted and password-protected pastes in Chromium (issue 23), at 390 px and on a desktop.

The browser encrypts, the server stores an envelope it cannot read, and the key never leaves the
browser: every request the browser makes is recorded and searched for it. What the browser makes
decrypts with the README's Python snippet, and what that snippet makes decrypts in the browser.
"""

from pathlib import Path

import pytest

from pastes.models import Paste
from tests.browser import DESKTOP, PHONE, collect_csp_errors, overflow, sign_in
from tests.pastes.e2e import decrypt, encrypt
from tests.pastes.factories import PasteFactory
from tests.pastes.test_password import protected

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXT = "db_password = 'correct horse'\nnaïve — ünïcödé ✓\n" + "x" * 300 + "\n"


@pytest.fixture(params=[DESKTOP, PHONE], ids=["desktop", "390px"])
def context(request, browser):
    context = browser.new_context(viewport=request.param, accept_downloads=True)
    context.set_default_timeout(10_000)
    yield context
    context.close()


def record_requests(context) -> list[dict]:
    """Everything the browser sends: address, headers and body of every request of every page."""
    sent: list[dict] = []

    def keep(request):
        sent.append({"url": request.url, "headers": dict(request.headers), "body": request.post_data_buffer or b""})

    context.on("request", keep)
    return sent


def key_of(url: str) -> str:
    assert "#key=" in url, url
    return url.split("#key=", 1)[1]


def test_the_browser_encrypts_and_the_server_never_receives_the_key(context, live_server, user):
    sign_in(context, live_server, user)
    sent = record_requests(context)
    page = context.new_page()
    csp_errors = collect_csp_errors(page)
    page.goto(f"{live_server.url}/pastes/new")

    page.get_by_label("Name").fill("Database secrets")
    page.get_by_label("Content").fill(TEXT)
    page.get_by_label("Encrypt in my browser").check()
    page.get_by_label("Burn after read").check()  # the owner's own reads never burn it
    page.get_by_role("button", name="Create paste").click()
    page.get_by_test_id("e2e-plain").wait_for()

    paste = Paste.objects.get()
    key = key_of(page.url)
    assert page.url.startswith(f"{live_server.url}/pastes/{paste.id}#key=")
    assert page.evaluate("document.getElementById('e2e-plain').textContent") == TEXT
    assert page.get_by_test_id("encryption").inner_text() == "end-to-end"
    # What the server holds: an envelope, which the README's Python opens with the link's key.
    assert (paste.encrypted, paste.burn_after_read) == (True, True)
    assert "correct horse" not in paste.content
    assert decrypt(paste.content, key) == TEXT
    # The key went nowhere: not in an address, a header (Referer included) or a body.
    assert any(request["body"] for request in sent)  # the form's POST was recorded
    for request in sent:
        assert key not in request["url"], request["url"]
        assert all(key not in value for value in request["headers"].values()), request["headers"]
        assert key.encode() not in request["body"]
        assert b"correct horse" not in request["body"]
    assert overflow(page) == 0
    assert csp_errors == []


def test_the_page_decrypts_what_python_encrypted_and_says_so_when_the_key_is_missing_or_wrong(
    context, live_server, user
):
    content, key = encrypt(TEXT)
    paste = PasteFactory(owner=user, name="From a script", content=content, encrypted=True)
    page = context.new_page()
    csp_errors = collect_csp_errors(page)
    url = f"{live_server.url}/pastes/{paste.id}"

    page.goto(f"{url}#key={key}")
    page.get_by_test_id("e2e-plain").wait_for()
    assert page.evaluate("document.getElementById('e2e-plain').textContent") == TEXT
    with page.expect_download() as download:
        page.get_by_role("link", name="Download").click()
    assert download.value.suggested_filename == "from-a-script.txt"
    assert Path(download.value.path()).read_text(encoding="utf-8") == TEXT
    assert overflow(page) == 0

    page.goto(url)  # no key
    assert "this link has no key" in page.get_by_role("alert").inner_text()
    assert page.get_by_test_id("e2e-plain").is_hidden()

    _, other_key = encrypt("something else")
    page.goto(f"{url}#key={other_key}")
    page.get_by_text("does not decrypt this paste").wait_for()
    assert page.get_by_test_id("e2e-plain").is_hidden()
    assert csp_errors == []


def test_the_owner_edits_an_encrypted_paste_under_the_same_key(context, live_server, user):
    content, key = encrypt("first version")
    paste = PasteFactory(owner=user, name="Notes", content=content, encrypted=True)
    sign_in(context, live_server, user)
    page = context.new_page()
    page.goto(f"{live_server.url}/pastes/{paste.id}#key={key}")
    page.get_by_test_id("e2e-plain").wait_for()

    page.get_by_role("link", name="Edit", exact=True).click()
    page.get_by_text("Decrypted in your browser with the key in the link.").wait_for()
    assert page.get_by_label("Content").input_value() == "first version"
    page.get_by_label("Content").fill("second version")
    page.get_by_role("button", name="Save").click()
    page.get_by_text("Paste saved.").wait_for()
    page.get_by_test_id("e2e-plain").wait_for()

    assert key_of(page.url) == key  # links already shared keep working
    paste.refresh_from_db()
    assert decrypt(paste.content, key) == "second version"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_reader_unlocks_a_password_protected_burning_paste_once(browser, live_server, user, scheme):
    context = browser.new_context(viewport=PHONE, color_scheme=scheme)
    page = context.new_page()
    page.set_default_timeout(10_000)
    csp_errors = collect_csp_errors(page)
    paste = protected(user, name="Vault", burn_after_read=True)

    page.goto(f"{live_server.url}/pastes/{paste.id}")
    assert "the treasure" not in page.content()
    page.get_by_label("Password").fill("guess")
    page.get_by_role("button", name="Unlock and reveal").click()
    page.get_by_text("Wrong password.").wait_for()
    assert Paste.objects.filter(pk=paste.pk).exists()
    page.get_by_label("Password").fill("open sesame")
    page.get_by_role("button", name="Unlock and reveal").click()

    assert page.locator(".paste-code td.code").inner_text().strip() == "the treasure"
    assert not Paste.objects.filter(pk=paste.pk).exists()
    assert overflow(page) == 0
    assert csp_errors == []
    context.close()


def test_an_encrypted_password_protected_paste_keeps_its_key_through_the_password_form(browser, live_server, user):
    content, key = encrypt(TEXT)
    paste = protected(user, name="Both")
    Paste.objects.filter(pk=paste.pk).update(content=content, encrypted=True)
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.set_default_timeout(10_000)

    page.goto(f"{live_server.url}/pastes/{paste.id}#key={key}")
    page.get_by_label("Password").fill("open sesame")
    page.get_by_role("button", name="Unlock").click()
    page.get_by_test_id("e2e-plain").wait_for()

    assert key_of(page.url) == key
    assert page.evaluate("document.getElementById('e2e-plain').textContent") == TEXT
    context.close()
