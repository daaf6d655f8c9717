"""The paste page's attachments: previews, downloads, and the owner's attach and remove forms."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from pastes.attachment_models import Attachment
from pastes.models import Paste
from tests.pastes.attachment_fixtures import PDF_BYTES, png_bytes, stored_names
from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db(transaction=True)

SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


def attach(client, paste, data: bytes, name: str):
    return client.post(f"/pastes/{paste.id}/attachments", {"file": SimpleUploadedFile(name, data)})


def test_owner_attaches_an_image_and_a_pdf_and_readers_see_them(attachment_store, alice_client, client, user):
    paste = PasteFactory(owner=user)

    assert attach(alice_client, paste, png_bytes(), "cat.png").status_code == 302
    assert attach(alice_client, paste, PDF_BYTES, "report.pdf").status_code == 302

    image, pdf = Attachment.objects.order_by("filename")
    page = client.get(f"/pastes/{paste.id}").content.decode()
    assert f'<img src="{image.get_absolute_url()}" alt="Attached image cat.png"' in page
    assert f'<a href="{pdf.get_absolute_url()}" download>report.pdf</a>' in page
    assert f'<img src="{pdf.get_absolute_url()}"' not in page  # a PDF is a link, not a preview
    assert "Attach a file" not in page  # only the owner gets the form
    assert len(stored_names(attachment_store)) == 2


def test_an_svg_is_never_previewed(attachment_store, alice_client, client, user):
    paste = PasteFactory(owner=user)
    attach(alice_client, paste, SVG, "drawing.svg")

    attachment = Attachment.objects.get()
    assert attachment.content_type == "application/octet-stream"
    assert "<img" not in client.get(f"/pastes/{paste.id}").content.decode()


def test_a_refused_upload_is_said_on_the_page_and_stores_nothing(attachment_store, alice_client, user, settings):
    settings.PASTES_ATTACHMENT_MAX_BYTES = 10
    paste = PasteFactory(owner=user)

    response = alice_client.post(
        f"/pastes/{paste.id}/attachments", {"file": SimpleUploadedFile("big.bin", b"x" * 11)}, follow=True
    )

    assert "The file is too large: an attachment may hold at most 10 bytes." in response.content.decode()
    assert stored_names(attachment_store) == []


def test_only_the_owner_may_attach_or_remove(attachment_store, alice_client, bob_client, client, user):
    paste = PasteFactory(owner=user)
    attach(alice_client, paste, PDF_BYTES, "a.pdf")
    attachment = Attachment.objects.get()
    remove_url = f"/pastes/{paste.id}/attachments/{attachment.id}/delete"

    assert attach(bob_client, paste, PDF_BYTES, "b.pdf").status_code == 403
    assert bob_client.post(remove_url).status_code == 403
    assert client.post(remove_url).status_code == 302  # to sign in
    assert Attachment.objects.count() == 1

    assert alice_client.post(remove_url).status_code == 302
    assert not Attachment.objects.exists()
    assert stored_names(attachment_store) == []


def test_a_private_pastes_image_reaches_its_owner_through_the_session(attachment_store, alice_client, bob_client, user):
    paste = PasteFactory(owner=user, exposure=Paste.Exposure.PRIVATE)
    attach(alice_client, paste, png_bytes(), "cat.png")
    url = Attachment.objects.get().get_absolute_url()

    assert alice_client.get(url).status_code == 200
    assert bob_client.get(url).status_code == 404


def test_the_forms_need_csrf(attachment_store, user):
    from django.test import Client

    paste = PasteFactory(owner=user)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)

    assert attach(strict, paste, PDF_BYTES, "a.pdf").status_code == 403
    assert not Attachment.objects.exists()
