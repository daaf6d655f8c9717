from datetime import timedelta

import pytest
import time_machine
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework import status

from common.api_keys import digest
from pastes.models import ApiKey as PastesApiKey
from reports.models import ApiKey as ReportsApiKey

pytestmark = pytest.mark.django_db


def test_issued_key_is_random_and_stored_only_as_a_hash(user):
    api_key, raw_key = ReportsApiKey.issue(user=user, name="ci")

    stored = ReportsApiKey.objects.get(pk=api_key.pk)
    assert raw_key.startswith("rpt_")
    assert len(raw_key) >= len("rpt_") + 43  # 32 random bytes, base64url
    assert stored.hashed_key == digest(raw_key)
    assert raw_key not in {stored.hashed_key, stored.hint, stored.name}
    assert stored.hint == raw_key[:10]


def test_two_keys_are_never_equal(user):
    _, first = ReportsApiKey.issue(user=user)
    _, second = ReportsApiKey.issue(user=user)

    assert first != second


def test_authenticate_finds_the_key_by_its_raw_value(user):
    api_key, raw_key = PastesApiKey.issue(user=user)

    assert PastesApiKey.authenticate(raw_key) == api_key
    assert PastesApiKey.authenticate(raw_key + "x") is None
    assert PastesApiKey.authenticate("") is None


def test_a_key_opens_only_its_own_interface(user):
    _, reports_key = ReportsApiKey.issue(user=user)
    _, pastes_key = PastesApiKey.issue(user=user)

    assert PastesApiKey.authenticate(reports_key) is None
    assert ReportsApiKey.authenticate(pastes_key) is None


def test_revoked_key_no_longer_authenticates(user):
    api_key, raw_key = ReportsApiKey.issue(user=user)

    api_key.revoke()

    assert ReportsApiKey.objects.get(pk=api_key.pk).revoked_at is not None
    assert ReportsApiKey.authenticate(raw_key) is None


def test_key_of_a_deactivated_user_no_longer_authenticates(user):
    _, raw_key = ReportsApiKey.issue(user=user)
    user.is_active = False
    user.save()

    assert ReportsApiKey.authenticate(raw_key) is None


def test_last_used_at_is_recorded_at_most_once_a_minute(user):
    api_key, raw_key = ReportsApiKey.issue(user=user)
    start = timezone.now()

    with time_machine.travel(start, tick=False):
        ReportsApiKey.authenticate(raw_key)
    with time_machine.travel(start + timedelta(seconds=30), tick=False):
        ReportsApiKey.authenticate(raw_key)
    api_key.refresh_from_db()
    assert api_key.last_used_at == start

    with time_machine.travel(start + timedelta(minutes=2), tick=False):
        ReportsApiKey.authenticate(raw_key)
    api_key.refresh_from_db()
    assert api_key.last_used_at == start + timedelta(minutes=2)


def test_staff_create_a_key_in_the_admin_and_see_it_once(admin_client, user):
    form = {"user": user.pk, "name": "from the admin", "scope": "write"}  # the scope menu sends its default
    response = admin_client.post("/admin/reports/apikey/add/", form, follow=True)

    assert response.status_code == status.HTTP_200_OK
    api_key = ReportsApiKey.objects.get(user=user)
    shown = [str(m) for m in response.context["messages"]]
    raw_key = next(word for m in shown for word in m.split() if word.startswith("rpt_"))
    assert ReportsApiKey.authenticate(raw_key) == api_key

    page = admin_client.get(f"/admin/reports/apikey/{api_key.pk}/change/")
    assert raw_key.encode() not in page.content


def test_staff_revoke_keys_with_the_admin_action(admin_client, user):
    api_key, raw_key = PastesApiKey.issue(user=user)

    admin_client.post("/admin/pastes/apikey/", {"action": "revoke_keys", "_selected_action": [api_key.pk]}, follow=True)

    assert PastesApiKey.authenticate(raw_key) is None


def test_a_key_may_write_and_never_expires_unless_told(user):
    api_key, _raw_key = ReportsApiKey.issue(user=user)

    assert (api_key.scope, api_key.expires_at) == ("write", None)
    assert all(api_key.allows(method) for method in ("GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"))


def test_a_read_key_allows_only_the_safe_methods(user):
    api_key, _raw_key = PastesApiKey.issue(user=user, scope="read")

    assert [api_key.allows(method) for method in ("GET", "HEAD", "OPTIONS")] == [True, True, True]
    assert [api_key.allows(method) for method in ("POST", "PUT", "PATCH", "DELETE")] == [False] * 4


def test_the_database_refuses_an_unknown_scope(user):
    api_key, _raw_key = ReportsApiKey.issue(user=user)

    with pytest.raises(IntegrityError), transaction.atomic():
        ReportsApiKey.objects.filter(pk=api_key.pk).update(scope="admin")

    assert ReportsApiKey.objects.get().scope == "write"


def test_a_key_stops_authenticating_when_it_expires(user):
    expires_at = timezone.now() + timedelta(days=1)
    api_key, raw_key = ReportsApiKey.issue(user=user, expires_at=expires_at)

    with time_machine.travel(expires_at - timedelta(seconds=1), tick=False):
        assert ReportsApiKey.authenticate(raw_key) == api_key
        assert not api_key.is_expired
    with time_machine.travel(expires_at, tick=False):
        assert ReportsApiKey.authenticate(raw_key) is None
        assert api_key.is_expired


def test_staff_make_a_read_key_that_expires_in_the_admin(admin_client, user):
    form = {
        "user": user.pk,
        "name": "dashboard",
        "scope": "read",
        "expires_at_0": "2099-01-01",
        "expires_at_1": "00:00",
    }

    admin_client.post("/admin/pastes/apikey/add/", form, follow=True)

    api_key = PastesApiKey.objects.get()
    assert (api_key.scope, api_key.expires_at.isoformat()) == ("read", "2099-01-01T00:00:00+00:00")
