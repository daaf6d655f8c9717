"""Site audits in the admin: listed with their progress, never edited there."""

import pytest

from tests.reports.audits.factories import done_audit

pytestmark = pytest.mark.django_db


def test_the_admin_lists_audits_with_their_progress_and_shows_no_password_hash(admin_client, user):
    audit = done_audit(user)
    audit.set_privacy(2, "s3cret")
    audit.save()

    listed = admin_client.get("/admin/reports/audit/").content.decode()
    shown = admin_client.get(f"/admin/reports/audit/{audit.pk}/change/").content.decode()

    assert "https://shop.example/" in listed and "shop.example" in listed
    assert audit.password not in shown
    assert admin_client.get("/admin/reports/audit/add/").status_code == 403
