"""Attachments refused or defused (issue 47, item 6): each a clear error in B's shape, or a safe download,
and nothing left in the storage by a refused upload. Runs on the filesystem and on the S3 server."""

import io
import re
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from pastes.attachment_models import Attachment
from pastes.attachments import SEALED_NAME_MESSAGE
from tests.pastes.asserts import assert_pastes_error
from tests.pastes.attachment_fixtures import PDF_BYTES, png_bytes, stored_names
from tests.pastes.factories import PasteFactory, PasteProfileFactory

pytestmark = pytest.mark.django_db(transaction=True)

HTML = b"<!doctype html><html><script>alert(document.cookie)</script></html>"
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>'
NOT_AN_IMAGE = re.compile(r"The file is sent as (image/png|image/svg\+xml|application/pdf), but its bytes are not: .*")


def upload(client, paste, data: bytes, name: str = "file.bin", content_type: str = "application/octet-stream", **extra):
    file = SimpleUploadedFile(name, data, content_type=content_type)
    return client.post(f"/pastes/paste/@{paste.id}/attachments", {"file": file, **extra}, format="multipart")


def assert_nothing_stored(store) -> None:
    assert not Attachment.objects.exists()
    assert stored_names(store) == []


def test_a_file_over_the_limit_is_a_413_and_stores_nothing(attachment_store, owner_client, paste, settings):
    settings.PASTES_ATTACHMENT_MAX_BYTES = 100

    response = upload(owner_client, paste, b"x" * 101)

    assert_pastes_error(response, 413, "The file is too large: an attachment may hold at most 100 bytes.")
    assert_nothing_stored(attachment_store)
    assert upload(owner_client, paste, b"x" * 100).status_code == 201


def test_a_file_past_the_users_quota_is_a_413_and_stores_nothing(attachment_store, owner_client, paste, user):
    PasteProfileFactory(user=user, max_attachment_bytes=100)
    first = upload(owner_client, paste, b"a" * 60).json()

    response = upload(owner_client, paste, b"b" * 60)

    assert_pastes_error(
        response,
        413,
        "Attachment quota exceeded: your attachments may hold at most 100 bytes in total, "
        "and this file would bring them to 120.",
    )
    assert list(Attachment.objects.values_list("id", flat=True)) == [first["id"]]
    assert stored_names(attachment_store) == [f"{paste.id}/{first['id']}"]


def test_the_quota_counts_every_paste_of_the_owner(attachment_store, owner_client, paste, user):
    PasteProfileFactory(user=user, max_attachment_bytes=100)
    upload(owner_client, PasteFactory(owner=user), b"a" * 60)

    assert upload(owner_client, paste, b"b" * 60).status_code == 413
    assert upload(owner_client, paste, b"b" * 40).status_code == 201


def test_an_empty_file_is_refused(attachment_store, owner_client, paste):
    assert_pastes_error(upload(owner_client, paste, b""), 400, "file must not be empty.")
    assert_nothing_stored(attachment_store)


@pytest.mark.parametrize(
    ("data", "content_type"),
    [
        (HTML, "image/png"),  # HTML claiming to be an image
        (SVG, "image/svg+xml"),  # SVG is never an image here: it can carry scripts
        (b"\x89PNG\r\n\x1a\n" + HTML, "image/png"),  # a PNG signature and then a page: Pillow finds no image
        (HTML, "application/pdf"),
    ],
    ids=["html-as-png", "svg-with-script", "png-signature-then-html", "html-as-pdf"],
)
def test_a_claimed_image_or_pdf_that_is_not_one_is_refused(attachment_store, owner_client, paste, data, content_type):
    assert_pastes_error(upload(owner_client, paste, data, "cat.png", content_type), 400, NOT_AN_IMAGE)
    assert_nothing_stored(attachment_store)


@pytest.mark.parametrize(("data", "name"), [(HTML, "page.html"), (SVG, "drawing.svg"), (HTML, "cat.png")])
def test_html_and_svg_sent_as_bytes_are_a_safe_download(attachment_store, owner_client, paste, data, name):
    body = upload(owner_client, paste, data, name, "application/octet-stream").json()

    assert body["content_type"] == "application/octet-stream"  # not by the extension, not by the client
    served = APIClient().get(body["url"])
    assert served.status_code == 200
    assert served["Content-Type"] == "application/octet-stream"
    assert served["Content-Disposition"].startswith("attachment;")
    assert served["X-Content-Type-Options"] == "nosniff"
    assert "sandbox" in served["Content-Security-Policy"]
    assert b"".join(served.streaming_content) == data


def test_text_html_declared_is_still_served_as_bytes(attachment_store, owner_client, paste):
    body = upload(owner_client, paste, HTML, "page.html", "text/html").json()

    assert body["content_type"] == "application/octet-stream"
    assert APIClient().get(body["url"])["Content-Type"] == "application/octet-stream"


@pytest.mark.parametrize(
    ("filename", "message"),
    [
        ("../etc/passwd", "filename must be a name, without / or \\ (path separators)."),
        ("dir\\file.txt", "filename must be a name, without / or \\ (path separators)."),
        ("..", "filename must not be . or .. or start with ..."),
        ("..hidden", "filename must not be . or .. or start with ..."),
        ("bell\x07.txt", "filename must not contain control or invisible formatting characters."),
        ("line\nbreak.txt", "filename must not contain control or invisible formatting characters."),
        ("gpj\u202e.exe", "filename must not contain control or invisible formatting characters."),
        ("   ", "filename must not be empty."),
        ("a" * 256, "filename must be at most 255 characters long."),
    ],
    ids=["slash", "backslash", "dotdot", "dotdot-prefix", "bell", "newline", "rtl-override", "blank", "too-long"],
)
def test_a_filename_that_is_not_a_plain_name_is_refused(attachment_store, owner_client, paste, filename, message):
    assert_pastes_error(upload(owner_client, paste, PDF_BYTES, filename=filename), 400, message)
    assert_nothing_stored(attachment_store)


def test_a_path_in_the_parts_own_filename_is_cut_to_its_last_name(attachment_store, owner_client, paste):
    # Django's multipart parser keeps the last component of the part's filename; so do we, and it
    # never becomes a path in the storage.
    body = upload(owner_client, paste, PDF_BYTES, "../../etc/passwd").json()

    assert body["filename"] == "passwd"
    assert stored_names(attachment_store) == [f"{paste.id}/{body['id']}"]
    assert APIClient().get(body["url"])["Content-Disposition"] == 'attachment; filename="passwd"'


def test_a_non_ascii_filename_is_sent_encoded(attachment_store, owner_client, paste):
    body = upload(owner_client, paste, PDF_BYTES, filename="résumé été.pdf").json()

    assert body["filename"] == "résumé été.pdf"
    assert APIClient().get(body["url"])["Content-Disposition"] == (
        "attachment; filename*=utf-8''r%C3%A9sum%C3%A9%20%C3%A9t%C3%A9.pdf"
    )


def test_a_zip_bomb_is_stored_and_served_as_the_bytes_it_is(attachment_store, owner_client, paste):
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zip_file:
        zip_file.writestr("zeros.bin", b"\0" * (50 * 1024 * 1024))  # 50 MiB that deflate to ~50 KiB
    data = archive.getvalue()

    body = upload(owner_client, paste, data, "bomb.zip", "application/zip").json()

    assert body["content_type"] == "application/zip"
    assert body["size"] == len(data) < 100_000  # counted, and limited, as sent: it is never unpacked
    assert b"".join(APIClient().get(body["url"]).streaming_content) == data


def test_an_image_on_an_encrypted_paste_is_opaque_bytes(attachment_store, owner_client, user):
    from tests.pastes.e2e import encrypt, seal

    content, key = encrypt("secret")
    paste = PasteFactory(owner=user, content=content, encrypted=True)

    body = upload(
        owner_client, paste, png_bytes(), "x", "application/octet-stream", filename=seal("cat.png", key)
    ).json()

    assert body["content_type"] == "application/octet-stream"  # the server cannot know what ciphertext holds


def test_an_encrypted_pastes_attachment_needs_a_sealed_name(attachment_store, owner_client, user):
    from tests.pastes.e2e import encrypt, seal

    content, key = encrypt("secret")
    paste = PasteFactory(owner=user, content=content, encrypted=True)

    clear = upload(owner_client, paste, b"ciphertext", "plans.pdf")
    assert_pastes_error(clear, 400, SEALED_NAME_MESSAGE)
    assert_nothing_stored(attachment_store)

    sealed = seal("plans.pdf", key)
    created = upload(owner_client, paste, b"ciphertext", "x", filename=sealed)
    assert created.status_code == 201 and created.json()["filename"] == sealed
    assert Attachment.objects.get().filename == sealed  # the server never had the name


@pytest.mark.parametrize(
    ("kwargs", "status", "message"),
    [
        ({"data": {"filename": "x.txt"}, "format": "multipart"}, 400, re.compile(r"file is required.*")),
        ({"data": {"file": "just text"}, "format": "multipart"}, 400, re.compile(r"file is required.*")),
        ({"data": {"file": "x"}, "format": "json"}, 400, "Send the file as multipart/form-data, in a part named file."),
    ],
    ids=["no-file", "file-as-a-text-field", "json-body"],
)
def test_a_body_without_a_file_is_refused(attachment_store, owner_client, paste, kwargs, status, message):
    response = owner_client.post(f"/pastes/paste/@{paste.id}/attachments", **kwargs)

    assert_pastes_error(response, status, message)
    assert_nothing_stored(attachment_store)


def test_unknown_fields_and_two_files_are_refused(attachment_store, owner_client, paste):
    one = SimpleUploadedFile("a.bin", b"a")
    two = SimpleUploadedFile("b.bin", b"b")
    url = f"/pastes/paste/@{paste.id}/attachments"

    assert_pastes_error(
        owner_client.post(url, {"file": one, "colour": "red"}, format="multipart"),
        400,
        "Unknown field(s): colour. Allowed fields: file, filename.",
    )
    assert_pastes_error(
        owner_client.post(url, {"file": [one, two]}, format="multipart"), 400, "Send one file per request."
    )
    assert_nothing_stored(attachment_store)


@pytest.mark.parametrize("attachment_id", ["nope", "x" * 80, "a%00b"])
def test_unknown_attachment_ids_are_404(owner_client, paste, attachment_id):
    url = f"/pastes/paste/@{paste.id}/attachments/{attachment_id}"
    assert_pastes_error(APIClient().get(url), 404, "Attachment not found.")
    assert_pastes_error(owner_client.delete(url), 404, "Attachment not found.")
