"""Attachments (issue 47, item 2): upload, read, download, delete, the bytes' lifetime, and bad input.

Every test that touches bytes runs twice: on the filesystem storage and on a real S3-compatible
server (moto in server mode, tests/s3_server.py), and lists the storage to check what is left.
"""

import io
import re
from datetime import timedelta

import pytest
import time_machine
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from pastes.attachment_models import Attachment
from pastes.models import Paste
from tests.pastes.asserts import assert_pastes_error
from tests.pastes.attachment_fixtures import PDF_BYTES, png_bytes, stored_names
from tests.pastes.factories import PasteFactory, PasteProfileFactory

# Transactional: the bytes are deleted once a deletion commits (transaction.on_commit).
pytestmark = pytest.mark.django_db(transaction=True)


def url(paste_id: str) -> str:
    return f"/pastes/paste/@{paste_id}/attachments"


def upload(client: APIClient, paste_id: str, data: bytes, name: str = "picture.png", content_type: str = "", **extra):
    file = SimpleUploadedFile(name, data, content_type=content_type or "application/octet-stream")
    return client.post(url(paste_id), {"file": file, **extra}, format="multipart")


def download_bytes(response) -> bytes:
    return b"".join(response.streaming_content)


# --- The contract -------------------------------------------------------------------------------


def test_owner_attaches_an_image_and_a_reader_sees_and_downloads_it(attachment_store, owner_client, paste):
    image = png_bytes()

    response = upload(owner_client, paste.id, image, "cat.png", "image/png")

    assert response.status_code == 201, response.content
    body = response.json()
    assert set(body) == {"id", "filename", "size", "content_type", "url"}
    assert body["filename"] == "cat.png"
    assert body["size"] == len(image)
    assert body["content_type"] == "image/png"
    assert body["url"] == f"/pastes/paste/@{paste.id}/attachments/{body['id']}"
    attachment = Attachment.objects.get(pk=body["id"])
    assert (attachment.paste_id, attachment.owner_id, attachment.size) == (paste.id, paste.owner_id, len(image))
    assert stored_names(attachment_store) == [f"{paste.id}/{body['id']}"]

    read = APIClient().get(f"/pastes/paste/@{paste.id}")
    assert read.json()["attachments"] == [body]

    served = APIClient().get(body["url"])
    assert served.status_code == 200
    assert download_bytes(served) == image
    assert served["Content-Type"] == "image/png"
    assert served["Content-Disposition"] == 'attachment; filename="cat.png"'
    assert served["X-Content-Type-Options"] == "nosniff"
    assert "sandbox" in served["Content-Security-Policy"]
    assert "default-src 'none'" in served["Content-Security-Policy"]
    assert served["Content-Length"] == str(len(image))


def test_a_pdf_is_served_as_a_pdf_download(attachment_store, owner_client, paste):
    body = upload(owner_client, paste.id, PDF_BYTES, "report.pdf", "application/pdf").json()

    assert body["content_type"] == "application/pdf"
    served = APIClient().get(body["url"])
    assert served["Content-Type"] == "application/pdf"
    assert served["Content-Disposition"] == 'attachment; filename="report.pdf"'


def test_a_paste_without_attachments_reads_an_empty_list(owner_client, paste):
    assert APIClient().get(f"/pastes/paste/@{paste.id}").json()["attachments"] == []


def test_the_account_lists_each_pastes_attachments_and_the_user_object_shows_the_quota(
    attachment_store, owner_client, paste, user
):
    PasteProfileFactory(user=user, max_attachment_bytes=5000)
    body = upload(owner_client, paste.id, PDF_BYTES, "a.pdf").json()

    account = APIClient().get(f"/pastes/accounts/@{user.username}").json()

    assert account["max_attachment_bytes"] == 5000
    assert account["attachment_bytes"] == len(PDF_BYTES)
    assert account["pastes"][0]["attachments"] == [body]


def test_owner_deletes_an_attachment_and_its_bytes(attachment_store, owner_client, paste):
    body = upload(owner_client, paste.id, PDF_BYTES, "a.pdf").json()

    response = owner_client.delete(body["url"])

    assert response.status_code == 204
    assert not Attachment.objects.exists()
    assert stored_names(attachment_store) == []
    paste.refresh_from_db()
    assert paste.attachment_count == 0
    assert_pastes_error(APIClient().get(body["url"]), 404, "Attachment not found.")


# --- The bytes go with the paste ----------------------------------------------------------------


def test_deleting_the_paste_deletes_the_bytes(attachment_store, owner_client, paste):
    upload(owner_client, paste.id, PDF_BYTES, "a.pdf")
    upload(owner_client, paste.id, png_bytes(), "b.png")
    assert len(stored_names(attachment_store)) == 2

    assert owner_client.delete(f"/pastes/delete/{paste.id}").status_code == 204

    assert stored_names(attachment_store) == []
    assert not Attachment.objects.exists()


def test_burn_after_read_deletes_the_bytes(attachment_store, owner_client, user):
    paste = PasteFactory(owner=user, burn_after_read=True)
    upload(owner_client, paste.id, PDF_BYTES, "a.pdf")

    read = APIClient().get(f"/pastes/paste/@{paste.id}")

    assert read.status_code == 200
    assert stored_names(attachment_store) == []
    assert not Paste.objects.filter(pk=paste.pk).exists()


def test_burn_after_read_attachments_are_the_owners_only_until_the_burn(
    attachment_store, owner_client, other_client, user
):
    paste = PasteFactory(owner=user, burn_after_read=True)
    body = upload(owner_client, paste.id, PDF_BYTES, "a.pdf").json()

    assert_pastes_error(
        other_client.get(body["url"]),
        403,
        re.compile(r"This paste is burned after reading: its attachments are served to its owner only.*"),
    )
    assert download_bytes(owner_client.get(body["url"])) == PDF_BYTES
    assert Paste.objects.filter(pk=paste.pk).exists()  # neither download burned it


def test_expiry_deletes_the_bytes_on_read(attachment_store, owner_client, user):
    paste = PasteFactory(owner=user)
    upload(owner_client, paste.id, PDF_BYTES, "a.pdf")
    Paste.objects.filter(pk=paste.pk).update(
        expiration=Paste.Expiration.ONE_HOUR, expires_at=timezone.now() + timedelta(hours=1)
    )

    with time_machine.travel(timezone.now() + timedelta(hours=2)):
        assert APIClient().get(f"/pastes/paste/@{paste.id}").status_code == 404

    assert stored_names(attachment_store) == []


def test_purge_expired_pastes_deletes_the_bytes(attachment_store, owner_client, user):
    expiring = PasteFactory(owner=user)
    kept = PasteFactory(owner=user)
    upload(owner_client, expiring.id, PDF_BYTES, "a.pdf")
    kept_body = upload(owner_client, kept.id, PDF_BYTES, "b.pdf").json()
    Paste.objects.filter(pk=expiring.pk).update(
        expiration=Paste.Expiration.ONE_HOUR, expires_at=timezone.now() - timedelta(minutes=1)
    )

    call_command("purge_expired_pastes", stdout=io.StringIO())

    assert stored_names(attachment_store) == [f"{kept.id}/{kept_body['id']}"]


# --- Who may do what ----------------------------------------------------------------------------


def test_only_the_owner_may_attach(attachment_store, other_client, anon_client, paste, user):
    private = PasteFactory(owner=user, exposure=Paste.Exposure.PRIVATE)

    assert_pastes_error(
        upload(other_client, paste.id, PDF_BYTES), 403, "Only the owner of this paste may change or delete it."
    )
    assert_pastes_error(upload(other_client, private.id, PDF_BYTES), 404, re.compile(r"Paste not found.*"))
    assert_pastes_error(
        upload(anon_client, paste.id, PDF_BYTES), 401, "An API key is required: send it as the Authorization header."
    )
    assert_pastes_error(upload(other_client, "nosuchpaste1", PDF_BYTES), 404, re.compile(r"Paste not found.*"))
    assert stored_names(attachment_store) == []
    assert not Attachment.objects.exists()


def test_only_the_owner_may_delete_an_attachment(attachment_store, owner_client, other_client, anon_client, paste):
    body = upload(owner_client, paste.id, PDF_BYTES).json()

    assert_pastes_error(other_client.delete(body["url"]), 403, "Only the owner of this paste may change or delete it.")
    assert anon_client.delete(body["url"]).status_code == 401
    assert_pastes_error(owner_client.delete(f"{url(paste.id)}/nosuchattachmen"), 404, "Attachment not found.")
    assert Attachment.objects.count() == 1
    assert len(stored_names(attachment_store)) == 1


def test_a_private_pastes_attachments_are_the_owners_only(
    attachment_store, owner_client, other_client, anon_client, user
):
    private = PasteFactory(owner=user, exposure=Paste.Exposure.PRIVATE)
    body = upload(owner_client, private.id, PDF_BYTES).json()

    assert download_bytes(owner_client.get(body["url"])) == PDF_BYTES
    assert_pastes_error(other_client.get(body["url"]), 404, re.compile(r"Paste not found.*"))
    assert_pastes_error(anon_client.get(body["url"]), 404, re.compile(r"Paste not found.*"))


def test_a_password_protected_pastes_attachments_need_the_password(attachment_store, owner_client, anon_client, user):
    paste = PasteFactory(owner=user)
    paste.set_password("hunter2")
    paste.save()
    body = upload(owner_client, paste.id, PDF_BYTES).json()

    assert_pastes_error(anon_client.get(body["url"]), 401, re.compile(r"This paste is protected by a password.*"))
    assert_pastes_error(
        anon_client.get(body["url"], HTTP_X_PASTE_PASSWORD="wrong"), 403, "Wrong password for this paste."
    )
    assert download_bytes(anon_client.get(body["url"], HTTP_X_PASTE_PASSWORD="hunter2")) == PDF_BYTES


def test_an_attachment_of_another_paste_is_not_found_through_this_one(attachment_store, owner_client, paste, user):
    other_paste = PasteFactory(owner=user)
    body = upload(owner_client, other_paste.id, PDF_BYTES).json()

    assert_pastes_error(APIClient().get(f"{url(paste.id)}/{body['id']}"), 404, "Attachment not found.")


def test_a_read_only_key_cannot_attach(attachment_store, user, paste):
    from pastes.models import ApiKey

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=ApiKey.issue(user=user, scope="read")[1])

    assert upload(client, paste.id, PDF_BYTES).status_code == 403
    assert stored_names(attachment_store) == []
