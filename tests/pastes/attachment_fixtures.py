"""Fixtures for attachment tests: each test runs on the filesystem storage and on a real S3-compatible server.

tests/pastes/conftest.py imports the fixtures; test modules import the helpers.
"""

import io
import secrets
from collections.abc import Iterator

import pytest
from django.core.files.storage import Storage

from pastes.attachments import attachment_storage
from tests.s3_server import create_bucket, moto_server, s3_storage_settings

PDF_BYTES = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def png_bytes(width: int = 2, height: int = 2) -> bytes:
    from PIL import Image

    output = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(output, "PNG")
    return output.getvalue()


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    with moto_server() as endpoint:
        yield endpoint


@pytest.fixture(params=["filesystem", "s3"])
def attachment_store(request, settings, tmp_path) -> Storage:
    """The attachments' storage for this test: a fresh directory, or a fresh bucket on the S3 server."""
    if request.param == "filesystem":
        entry = {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": tmp_path / "paste-attachments", "base_url": None},
        }
    else:
        endpoint = request.getfixturevalue("s3_endpoint")
        bucket = f"attachments-{secrets.token_hex(6)}"
        create_bucket(endpoint, bucket)
        entry = s3_storage_settings(endpoint, bucket)
    settings.STORAGES = {**settings.STORAGES, "pastes_attachments": entry}
    return attachment_storage()


def stored_names(storage: Storage) -> list[str]:
    """Every name in the storage ("<paste id>/<attachment id>"), listed through the storage itself."""
    names = []
    try:
        directories, files = storage.listdir("")
    except FileNotFoundError:
        return []
    names += files
    for directory in directories:
        names += [f"{directory}/{name}" for name in storage.listdir(directory)[1]]
    return sorted(names)


def use_filesystem_storage(settings, directory) -> None:
    """Attachments stored under `directory` for the rest of the test (`settings`: pytest-django's fixture)."""
    settings.STORAGES = {
        **settings.STORAGES,
        "pastes_attachments": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": directory, "base_url": None},
        },
    }


def paste_with_attachments(owner, settings, directory) -> str:
    """A paste of `owner` with an image and a PDF attached (stored under `directory`); its id. For the axe sweep."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from pastes.attachments import attachment_add
    from tests.pastes.factories import PasteFactory

    use_filesystem_storage(settings, directory)
    paste = PasteFactory(owner=owner, name="With files", content="See the files below.\n")
    image = SimpleUploadedFile("a-rather-long-photo-name.png", png_bytes(64, 48), "image/png")
    attachment_add(paste=paste, upload=image)
    attachment_add(paste=paste, upload=SimpleUploadedFile("report.pdf", PDF_BYTES, "application/pdf"))
    return paste.id
