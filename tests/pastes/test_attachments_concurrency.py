"""Attachments under parallel requests, on PostgreSQL (real row locks), on both storages."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from pastes.attachment_models import Attachment
from pastes.models import Paste
from tests.concurrency import run_concurrently
from tests.pastes.attachment_fixtures import stored_names
from tests.pastes.factories import PasteFactory, PasteProfileFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 8
RACES = 3  # the delete-versus-upload race is run a few times: its outcome depends on who locks first


def keyed(raw_key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=raw_key)
    return client


def test_parallel_uploads_fill_the_quota_exactly_and_leave_no_orphan_bytes(attachment_store, user, owner_key):
    PasteProfileFactory(user=user, max_attachment_bytes=100)
    paste = PasteFactory(owner=user)

    def attach():
        file = SimpleUploadedFile("part.bin", b"z" * 30)
        return keyed(owner_key).post(f"/pastes/paste/@{paste.id}/attachments", {"file": file}, format="multipart")

    results = run_concurrently(attach, times=THREADS)

    assert sorted(result.status_code for result in results) == [201] * 3 + [413] * (THREADS - 3)
    created = sorted(f"{paste.id}/{result.json()['id']}" for result in results if result.status_code == 201)
    assert stored_names(attachment_store) == created  # the refused uploads' bytes were deleted
    assert sum(Attachment.objects.values_list("size", flat=True)) == 90
    paste.refresh_from_db()
    assert paste.attachment_count == 3  # what reads rely on to skip the query when there are none


def test_parallel_deletes_of_one_attachment_count_it_off_once(attachment_store, user, owner_key):
    paste = PasteFactory(owner=user)
    client = keyed(owner_key)
    urls = [
        client.post(f"/pastes/paste/@{paste.id}/attachments", {"file": SimpleUploadedFile(name, b"z")}).json()["url"]
        for name in ("kept.bin", "gone.bin")
    ]

    results = run_concurrently(lambda: keyed(owner_key).delete(urls[1]), times=THREADS)

    assert sorted(result.status_code for result in results) == [204] + [404] * (THREADS - 1)
    paste.refresh_from_db()
    assert paste.attachment_count == 1
    assert [item["filename"] for item in client.get(f"/pastes/paste/@{paste.id}").json()["attachments"]] == ["kept.bin"]


@pytest.mark.parametrize("race", range(RACES))
def test_uploads_racing_a_delete_leave_no_bytes_behind(attachment_store, user, owner_key, race):
    paste = PasteFactory(owner=user)
    requests = iter(["delete"] + ["upload"] * (THREADS - 1))

    def act():
        client = keyed(owner_key)
        if next(requests) == "delete":
            return client.delete(f"/pastes/delete/{paste.id}")
        file = SimpleUploadedFile("part.bin", b"z" * 30)
        return client.post(f"/pastes/paste/@{paste.id}/attachments", {"file": file}, format="multipart")

    results = run_concurrently(act, times=THREADS)

    assert all(result.status_code in (201, 204, 404) for result in results), [r.status_code for r in results]
    assert not Paste.objects.filter(pk=paste.pk).exists()
    assert not Attachment.objects.exists()
    assert stored_names(attachment_store) == []
