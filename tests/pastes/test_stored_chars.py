"""The quota's running total (OwnerStoredChars, kept by triggers) equals the sums it replaced after every write."""

from datetime import timedelta
from importlib import import_module

import pytest
from django.db import connection
from django.utils import timezone

from pastes.files import owner_extra_chars
from pastes.models import OwnerStoredChars, Paste, PasteFile, PasteRevision
from tests.pastes.factories import PasteFactory, PasteProfileFactory
from tests.pastes.test_revisions import create, edit

pytestmark = pytest.mark.django_db

migration = import_module("pastes.migrations.0012_owner_stored_chars")


def summed(user) -> int:
    """What the quota summed before the running total: every paste, file 2… and kept revision."""
    return Paste.objects.filter(owner=user).total_chars() + owner_extra_chars(user)


def kept(user) -> int:
    return OwnerStoredChars.objects.filter(owner=user).values_list("chars", flat=True).first() or 0


def test_every_write_through_the_api_keeps_the_total(owner_client, user):
    two_files = [{"filename": "a.txt", "content": "abc"}, {"filename": "b.txt", "content": "defgh"}]
    first = create(owner_client, name="two files", files=two_files)
    second = create(owner_client, name="plain", content="0123456789")
    assert kept(user) == summed(user) == 18

    assert edit(owner_client, first, files=[{"filename": "a.txt", "content": "abcd"}]).status_code == 200
    assert edit(owner_client, second, content="01234").status_code == 200
    assert PasteRevision.objects.filter(files__isnull=False).count() == 2
    assert kept(user) == summed(user) == 4 + 5 + 8 + 10

    assert owner_client.delete(f"/pastes/paste/@{first}/revisions/1").status_code == 204
    assert kept(user) == summed(user) == 4 + 5 + 10

    assert owner_client.delete(f"/pastes/delete/{first}").status_code == 204
    assert kept(user) == summed(user) == 5 + 10

    assert owner_client.delete(f"/pastes/delete/{second}").status_code == 204
    assert kept(user) == summed(user) == 0


def test_writes_outside_the_api_keep_every_owners_total(user, other_user):
    """The admin moving a paste, a bulk delete, a file changed by hand: the triggers see them all."""
    pastes = [PasteFactory(owner=user, content="x" * n) for n in (1, 2, 3)]
    PasteFile.objects.create(paste=pastes[0], position=2, filename="b.txt", content="yyyy")
    PasteRevision.objects.create(paste=pastes[1], number=1, name="r", files=[], size=7)
    assert kept(user) == summed(user) == 1 + 2 + 3 + 4 + 7

    pastes[0].owner = other_user
    pastes[0].save()
    assert (kept(user), kept(other_user)) == (summed(user), summed(other_user)) == (12, 5)

    PasteFile.objects.filter(paste=pastes[0]).update(content="yy")
    PasteRevision.objects.filter(paste=pastes[1]).update(files=None)
    assert (kept(user), kept(other_user)) == (summed(user), summed(other_user)) == (5, 3)

    Paste.objects.filter(pk__in=[paste.pk for paste in pastes]).delete()
    assert (kept(user), kept(other_user)) == (summed(user), summed(other_user)) == (0, 0)


def test_a_create_counts_what_the_owner_stores_and_refuses_past_the_limit(owner_client, user):
    PasteProfileFactory(user=user, max_paste_chars=20)
    PasteFactory(owner=user, content="x" * 15)

    refused = owner_client.post("/pastes/create", {"name": "nn", "content": "y" * 6}, format="json")
    accepted = owner_client.post("/pastes/create", {"name": "nn", "content": "y" * 5}, format="json")

    assert refused.status_code == 413
    assert accepted.status_code == 200
    assert kept(user) == summed(user) == 20


def test_an_expired_paste_stops_counting_when_the_next_create_deletes_it(owner_client, user):
    PasteProfileFactory(user=user, max_paste_chars=20)
    PasteFactory(
        owner=user,
        content="x" * 15,
        expiration=Paste.Expiration.ONE_HOUR,
        expires_at=timezone.now() - timedelta(minutes=1),
    )

    response = owner_client.post("/pastes/create", {"name": "nn", "content": "y" * 10}, format="json")

    assert response.status_code == 200
    assert kept(user) == summed(user) == 10


def test_a_deleted_owner_leaves_no_total(user):
    PasteFactory(owner=user, content="abc")

    user.delete()

    assert not OwnerStoredChars.objects.exists()


def test_the_migration_fills_in_the_totals_of_existing_pastes(user, other_user):
    PasteFactory(owner=user, content="abc")
    PasteFactory(owner=other_user, content="de")
    OwnerStoredChars.objects.all().delete()

    with connection.cursor() as cursor:
        cursor.execute(migration.BACKFILL)

    assert (kept(user), kept(other_user)) == (3, 2)


def test_every_trigger_is_in_place():
    """A later migration that rebuilds one of the tables on SQLite drops its triggers: this says so."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT tgname FROM pg_trigger WHERE tgname LIKE 'pastes_stored_chars_%%'")
        else:
            cursor.execute(
                "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'pastes_stored_chars_%'"
            )
        names = {row[0] for row in cursor.fetchall()}

    assert names == set(migration.TRIGGER_NAMES)
