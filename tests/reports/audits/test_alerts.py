"""A finished audit's alerts: audit.done, budget.failed and check.regressed, signed, to a local receiver."""

import hashlib
import hmac
import json

import pytest
from django.core import mail

from reports.models import Audit, Project, Report, WebhookDelivery
from tests.reports.audits.factories import done_audit
from tests.reports.webhook_receiver import Receiver

pytestmark = pytest.mark.django_db

SECRET = "an-audit-receivers-secret-0123"


@pytest.fixture
def receiver(settings):
    settings.REPORTS_WEBHOOK_BACKOFF = 0
    receiver = Receiver().start()
    yield receiver
    receiver.close()


def test_a_finished_audit_sends_signed_audit_done_budget_failed_and_check_regressed(
    owner_client, user, audit_site, receiver, settings
):
    settings.MAILERS = {"default": {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}}
    baseline = done_audit(user, host="localhost", score=100)
    Audit.objects.filter(pk=baseline.pk).update(url=audit_site.url("/a"))
    Project.objects.filter(name="localhost").update(budget={"min_score": 95}, alert_email="ops@shop.example")
    hook = owner_client.post(
        "/api/v1/projects/localhost/webhooks",
        {
            "url": receiver.url,
            "events": ["audit.done", "budget.failed", "check.regressed", "report.done"],
            "secret": SECRET,
        },
        format="json",
    )
    assert hook.status_code == 201

    audit_id = owner_client.post("/api/v1/audits", {"url": audit_site.url("/a")}, format="json").json()["data"]["id"]

    events = {}
    for received in receiver.received:
        expected = "sha256=" + hmac.new(SECRET.encode(), received.body, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(expected, received.headers["X-Webtools-Signature"])
        events[received.headers["X-Webtools-Event"]] = json.loads(received.body)
    # One event per audit: its pages send no report.done of their own.
    assert sorted(events) == ["audit.done", "budget.failed", "check.regressed"]
    done = events["audit.done"]["data"]
    assert (done["id"], done["status"]) == (audit_id, "done")
    assert done["pages_done"] == Report.objects.filter(audit_id=audit_id, status="done").count() > 0
    assert done["summary"]["issues"]
    assert events["budget.failed"]["data"]["budget"]["passed"] is False
    assert events["budget.failed"]["data"]["audit"]["id"] == audit_id
    regressed = events["check.regressed"]["data"]
    assert (regressed["audit"]["id"], regressed["with"]["id"]) == (audit_id, baseline.pk)
    assert "https_encryption" in {check["check"] for check in regressed["checks"]}
    assert set(WebhookDelivery.objects.values_list("status", flat=True)) == {"delivered"}
    assert sorted(message.subject.split(":")[0] for message in mail.outbox) == [
        "[Webtools] budget.failed",
        "[Webtools] check.regressed",
    ]
    assert f"Audit #{audit_id}" in mail.outbox[0].body
