"""Races on PostgreSQL: parallel requests, each thread with its own database connection."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from pastes.models import Paste, PasteRevision
from tests.concurrency import run_concurrently
from tests.pastes.factories import PasteFactory, PasteProfileFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 8


def statuses(results) -> list[int]:
    return sorted(result.status_code for result in results)


def test_burn_after_read_is_served_to_exactly_one_of_parallel_readers(user):
    paste = PasteFactory(owner=user, burn_after_read=True, content="only once")

    results = run_concurrently(lambda: APIClient().get(f"/pastes/paste/@{paste.id}"), times=THREADS)

    assert statuses(results) == [200] + [404] * (THREADS - 1)
    winner = next(result for result in results if result.status_code == 200)
    assert winner.json()["content"] == "only once"
    assert not Paste.objects.filter(pk=paste.pk).exists()


def test_burn_after_read_is_served_once_across_paste_and_raw_readers(user):
    paste = PasteFactory(owner=user, burn_after_read=True)
    urls = iter([f"/pastes/paste/@{paste.id}", f"/pastes/paste/@{paste.id}/raw"] * THREADS)

    results = run_concurrently(lambda: APIClient().get(next(urls)), times=THREADS)

    assert statuses(results) == [200] + [404] * (THREADS - 1)
    assert not Paste.objects.filter(pk=paste.pk).exists()


def test_parallel_reads_lose_no_views(user):
    paste = PasteFactory(owner=user)

    results = run_concurrently(lambda: APIClient().get(f"/pastes/paste/@{paste.id}"), times=THREADS)

    assert statuses(results) == [200] * THREADS
    assert sorted(result.json()["views"] for result in results) == list(range(1, THREADS + 1))
    paste.refresh_from_db()
    assert paste.views == THREADS


def _create_client(raw_key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=raw_key)
    return client


def test_parallel_creates_cannot_exceed_the_quota(user, owner_key):
    PasteProfileFactory(user=user, max_paste_chars=10)

    results = run_concurrently(
        lambda: _create_client(owner_key).post("/pastes/create", {"name": "ab", "content": "x" * 4}, format="json"),
        times=THREADS,
    )

    assert statuses(results) == [200] * 2 + [413] * (THREADS - 2)
    assert Paste.objects.filter(owner=user).total_chars() == 8


def test_parallel_first_creates_of_a_user_without_profile_respect_the_default_quota(user, owner_key, settings):
    settings.PASTES_DEFAULT_MAX_CHARS = 10

    results = run_concurrently(
        lambda: _create_client(owner_key).post("/pastes/create", {"name": "ab", "content": "x" * 5}, format="json"),
        times=THREADS,
    )

    assert statuses(results) == [200] * 2 + [413] * (THREADS - 2)
    assert Paste.objects.filter(owner=user).total_chars() == 10


def test_parallel_edits_growing_content_cannot_exceed_the_quota(user, owner_key):
    PasteProfileFactory(user=user, max_paste_chars=22)
    pastes = [PasteFactory(owner=user, content="x") for _ in range(THREADS)]
    targets = iter(pastes)

    def grow():
        paste = next(targets)
        return _create_client(owner_key).patch(
            f"/pastes/edit/{paste.id}", {"id": paste.id, "content": "y" * 7}, format="json"
        )

    results = run_concurrently(grow, times=THREADS)

    # 8 pastes of 1 char = 8; each edit adds 7 and keeps the old char as a revision (issue 47): two fit in 22.
    assert statuses(results) == [200] * 2 + [413] * (THREADS - 2)
    assert Paste.objects.filter(owner=user).total_chars() == 20
    assert PasteRevision.objects.filter(paste__owner=user).count() == 2


def test_parallel_reveals_on_the_html_page_show_the_paste_once(user):
    paste = PasteFactory(owner=user, burn_after_read=True, content="only once")

    results = run_concurrently(lambda: Client().post(f"/pastes/{paste.id}"), times=THREADS)

    assert statuses(results) == [200] + [404] * (THREADS - 1)
    assert sum("only once" in result.content.decode() for result in results) == 1
    assert not Paste.objects.filter(pk=paste.pk).exists()


def test_parallel_page_views_lose_no_views(user):
    paste = PasteFactory(owner=user)

    results = run_concurrently(lambda: Client().get(f"/pastes/{paste.id}"), times=THREADS)

    assert statuses(results) == [200] * THREADS
    paste.refresh_from_db()
    assert paste.views == THREADS


def test_parallel_password_guesses_cannot_pass_the_limit(user, settings):
    from tests.pastes.test_password import protected

    settings.PASTES_PASSWORD_RATE_LIMIT = 3
    paste = protected(user)

    results = run_concurrently(
        lambda: APIClient().get(f"/pastes/paste/@{paste.id}", HTTP_X_PASTE_PASSWORD="guess"), times=THREADS
    )

    assert statuses(results) == [403] * 3 + [429] * (THREADS - 3)


def test_parallel_right_passwords_burn_a_protected_paste_once(user):
    from tests.pastes.test_password import protected

    paste = protected(user, burn_after_read=True)

    results = run_concurrently(
        lambda: APIClient().get(f"/pastes/paste/@{paste.id}", HTTP_X_PASTE_PASSWORD="open sesame"), times=THREADS
    )

    assert statuses(results) == [200] + [404] * (THREADS - 1)
    assert not Paste.objects.filter(pk=paste.pk).exists()
