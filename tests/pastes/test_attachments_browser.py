"""Attaching an image and a PDF in a real browser, on a desktop and at 390 px, and what a reader gets."""

import pytest

from pastes.attachment_models import Attachment
from tests.browser import DESKTOP, PHONE, collect_csp_errors, overflow, sign_in
from tests.pastes.attachment_fixtures import PDF_BYTES, png_bytes, stored_names
from tests.pastes.factories import PasteFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Waits for the image to load and decode (it is lazy, and its bytes may come from the S3 server).
NATURAL_WIDTH = "img => img.decode().then(() => img.naturalWidth)"


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "390px"])
def test_the_owner_attaches_an_image_and_a_pdf_and_a_reader_sees_and_downloads_them(
    browser, live_server, user, attachment_store, tmp_path, viewport
):
    paste = PasteFactory(owner=user, name="Holiday", content="Photos and the booking.\n")
    (tmp_path / "beach.png").write_bytes(png_bytes(120, 80))
    (tmp_path / "booking.pdf").write_bytes(PDF_BYTES)
    owner = browser.new_context(viewport=viewport)
    sign_in(owner, live_server, user)
    page = owner.new_page()
    page.set_default_timeout(10_000)
    csp_errors = collect_csp_errors(page)

    page.goto(f"{live_server.url}/pastes/{paste.id}")
    for name in ("beach.png", "booking.pdf"):
        page.get_by_label("Attach a file").set_input_files(tmp_path / name)
        page.get_by_role("button", name="Attach", exact=True).click()
        page.get_by_text(f"Attached “{name}”.").wait_for()

    image = page.get_by_role("img", name="Attached image beach.png")
    image.wait_for()
    assert image.evaluate(NATURAL_WIDTH) == 120  # the preview really loaded
    assert page.get_by_role("link", name="booking.pdf").is_visible()
    assert overflow(page) == 0
    assert csp_errors == []
    owner.close()

    reader = browser.new_context(viewport=viewport, accept_downloads=True)
    page = reader.new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/pastes/{paste.id}")
    assert page.get_by_role("img", name="Attached image beach.png").evaluate(NATURAL_WIDTH) == 120
    assert page.get_by_label("Attach a file").count() == 0  # only the owner gets the form
    with page.expect_download() as download:
        page.get_by_role("link", name="booking.pdf").click()
    assert download.value.suggested_filename == "booking.pdf"
    assert download.value.path().read_bytes() == PDF_BYTES
    reader.close()

    assert sorted(Attachment.objects.values_list("filename", flat=True)) == ["beach.png", "booking.pdf"]
    assert len(stored_names(attachment_store)) == 2


def test_an_encrypted_pastes_attachment_is_encrypted_in_the_browser_and_decrypted_on_download(
    browser, live_server, user, attachment_store, tmp_path
):
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    from tests.pastes.e2e import decrypt, encrypt, snippet

    unb64url = snippet["unb64url"]

    content, key = encrypt("see the attached notes")
    paste = PasteFactory(owner=user, name="Sealed", content=content, encrypted=True)
    secret = b"the launch code is 0000\n"
    (tmp_path / "notes.txt").write_bytes(secret)
    context = browser.new_context(accept_downloads=True)
    sign_in(context, live_server, user)
    page = context.new_page()
    page.set_default_timeout(10_000)
    csp_errors = collect_csp_errors(page)

    page.goto(f"{live_server.url}/pastes/{paste.id}#key={key}")
    page.get_by_label("Attach a file").set_input_files(tmp_path / "notes.txt")
    page.get_by_role("button", name="Attach", exact=True).click()
    page.get_by_text("Attached the file, encrypted.").wait_for()

    attachment = Attachment.objects.get()
    assert "notes" not in attachment.filename  # sealed in the browser, as the content
    assert decrypt(attachment.filename, key) == "notes.txt"
    with attachment_store.open(attachment.storage_name, "rb") as stored:
        sealed = stored.read()
    assert secret not in sealed  # the server only ever had the ciphertext
    assert AESGCM(unb64url(key)).decrypt(sealed[:12], sealed[12:], None) == secret
    assert attachment.content_type == "application/octet-stream"
    with page.expect_download() as download:
        page.get_by_role("link", name="notes.txt").click()
    assert download.value.suggested_filename == "notes.txt"
    assert download.value.path().read_bytes() == secret
    assert csp_errors == []
    context.close()
