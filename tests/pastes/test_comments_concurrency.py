"""Discussions under parallel requests, on PostgreSQL: the per-paste cap holds, and a comment racing the
paste's deletion is either kept with it or refused, never a 500 or an orphan."""

import itertools

import pytest
from rest_framework.test import APIClient

from pastes.models import COMMENTS_PER_PASTE_MAX, Comment, Paste
from tests.concurrency import run_concurrently
from tests.pastes.factories import PasteFactory, issue_key

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 8


def test_parallel_comments_cannot_pass_the_cap_together(user, settings):
    settings.PASTES_COMMENT_RATE_LIMIT = 1000
    paste = PasteFactory(owner=user, discussion=True)
    Comment.objects.bulk_create(Comment(paste=paste, text="x") for _ in range(COMMENTS_PER_PASTE_MAX - 2))
    addresses = itertools.count(1)

    def comment():
        address = f"10.1.0.{next(addresses)}"
        return APIClient().post(
            f"/pastes/paste/@{paste.id}/comments", {"text": "race"}, format="json", REMOTE_ADDR=address
        )

    results = run_concurrently(comment, times=THREADS)

    assert sorted(result.status_code for result in results) == [201, 201] + [403] * (THREADS - 2)
    assert Comment.objects.filter(paste=paste).count() == COMMENTS_PER_PASTE_MAX


def test_comments_racing_the_pastes_deletion_leave_no_orphan(user, settings):
    settings.PASTES_COMMENT_RATE_LIMIT = 1000
    paste = PasteFactory(owner=user, discussion=True)
    key = issue_key(user)
    jobs = iter(["delete"] + ["comment"] * (THREADS - 1))

    def act():
        client = APIClient()
        if next(jobs) == "delete":
            client.credentials(HTTP_AUTHORIZATION=key)
            return client.delete(f"/pastes/delete/{paste.id}")
        return client.post(f"/pastes/paste/@{paste.id}/comments", {"text": "race"}, format="json")

    results = run_concurrently(act, times=THREADS)

    codes = sorted(result.status_code for result in results)
    assert 204 in codes and set(codes) <= {201, 204, 404}, codes
    assert not Paste.objects.filter(pk=paste.pk).exists()
    assert not Comment.objects.exists()
