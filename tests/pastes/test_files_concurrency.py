"""Races on PostgreSQL for several files and revisions (issue 47): the quota stays exact."""

import pytest
from rest_framework.test import APIClient

from pastes.files import owner_extra_chars
from pastes.models import Paste, PasteFile, PasteRevision
from tests.concurrency import run_concurrently
from tests.pastes.factories import PasteFactory, PasteProfileFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 8


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=key)
    return client


def stored(user) -> int:
    return Paste.objects.filter(owner=user).total_chars() + owner_extra_chars(user)


def test_parallel_many_file_creates_cannot_exceed_the_quota(user, owner_key):
    PasteProfileFactory(user=user, max_paste_chars=20)
    files = [{"filename": "a.txt", "content": "x" * 3}, {"filename": "b.txt", "content": "y" * 3}]

    results = run_concurrently(
        lambda: _client(owner_key).post("/pastes/create", {"name": "ab", "files": files}, format="json"),
        times=THREADS,
    )

    assert sorted(result.status_code for result in results) == [200] * 3 + [413] * (THREADS - 3)
    assert stored(user) == 18
    assert PasteFile.objects.count() == 3


def test_parallel_edits_of_one_paste_number_their_revisions_and_keep_the_quota(user, owner_key):
    PasteProfileFactory(user=user, max_paste_chars=4 * 5)
    paste = PasteFactory(owner=user, content="0" * 4)
    bodies = iter(str(n) * 4 for n in range(1, THREADS + 1))

    def change():
        return _client(owner_key).patch(
            f"/pastes/edit/{paste.id}", {"id": paste.id, "content": next(bodies)}, format="json"
        )

    results = run_concurrently(change, times=THREADS)

    # 4 characters now and 4 per revision kept: four edits fit in 20.
    assert sorted(result.status_code for result in results) == [200] * 4 + [413] * (THREADS - 4)
    assert list(PasteRevision.objects.order_by("number").values_list("number", flat=True)) == [1, 2, 3, 4]
    assert stored(user) == 20
