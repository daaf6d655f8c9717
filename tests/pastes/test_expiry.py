from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
import time_machine
from django.core.management import call_command
from rest_framework import status

from pastes.errors import PasteNotFound
from pastes.models import Paste
from tests.pastes.asserts import assert_pastes_error
from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db

START = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)
DURATIONS = [
    ("10 minutes", timedelta(minutes=10)),
    ("1 hour", timedelta(hours=1)),
    ("1 day", timedelta(days=1)),
    ("1 week", timedelta(weeks=1)),
    ("2 weeks", timedelta(weeks=2)),
    ("1 month", timedelta(days=30)),
    ("6 months", timedelta(days=180)),
    ("1 year", timedelta(days=365)),
]


def create_at(client, moment: datetime, expiration: str) -> str:
    with time_machine.travel(moment, tick=False):
        response = client.post(
            "/pastes/create", {"name": "ab", "content": "x", "expiration": expiration}, format="json"
        )
    return response.json()["id"]


@pytest.mark.parametrize(("label", "duration"), DURATIONS)
def test_paste_is_served_until_just_before_its_expiration(owner_client, anon_client, label, duration):
    paste_id = create_at(owner_client, START, label)

    with time_machine.travel(START + duration - timedelta(seconds=1), tick=False):
        response = anon_client.get(f"/pastes/paste/@{paste_id}")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["expiration"] == label


@pytest.mark.parametrize(("label", "duration"), DURATIONS)
def test_expired_paste_is_404_and_deleted(owner_client, anon_client, label, duration):
    paste_id = create_at(owner_client, START, label)

    with time_machine.travel(START + duration, tick=False):
        response = anon_client.get(f"/pastes/paste/@{paste_id}")

    assert_pastes_error(response, 404, PasteNotFound.message)
    assert not Paste.objects.filter(pk=paste_id).exists()


@pytest.mark.parametrize("who", ["owner", "other", "anonymous"])
def test_expired_paste_is_404_for_everyone(clients, user, who):
    paste = PasteFactory(owner=user, expiration=Paste.Expiration.ONE_HOUR, expires_at=START)

    with time_machine.travel(START, tick=False):
        response = clients[who].get(f"/pastes/paste/@{paste.id}/raw")

    assert_pastes_error(response, 404, PasteNotFound.message)
    assert not Paste.objects.filter(pk=paste.pk).exists()


def test_never_expiring_paste_is_served_years_later(owner_client, anon_client):
    paste_id = create_at(owner_client, START, "Never")

    with time_machine.travel(START + timedelta(days=3650), tick=False):
        response = anon_client.get(f"/pastes/paste/@{paste_id}")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["id"] == paste_id
    assert response.json()["expiration"] == "Never"


@pytest.fixture
def expired_and_live(user):
    expired = PasteFactory(owner=user, expiration=Paste.Expiration.ONE_HOUR, expires_at=START - timedelta(seconds=1))
    live = PasteFactory(owner=user, expiration=Paste.Expiration.ONE_HOUR, expires_at=START + timedelta(hours=1))
    forever = PasteFactory(owner=user)
    return expired, live, forever


def test_purge_deletes_only_expired_pastes(expired_and_live):
    _, live, forever = expired_and_live
    out = StringIO()

    with time_machine.travel(START, tick=False):
        call_command("purge_expired_pastes", stdout=out)

    assert set(Paste.objects.values_list("pk", flat=True)) == {live.pk, forever.pk}
    assert "Deleted 1 expired paste(s)." in out.getvalue()


def test_purge_dry_run_lists_and_keeps_them(expired_and_live):
    expired, _, _ = expired_and_live
    out = StringIO()

    with time_machine.travel(START, tick=False):
        call_command("purge_expired_pastes", "--dry-run", stdout=out)

    assert Paste.objects.count() == 3
    assert out.getvalue().splitlines() == [expired.pk, "1 expired paste(s) would be deleted."]
