"""A delivery's attempt runs once however many copies of its task run at once (PostgreSQL)."""

import pytest

from reports import webhooks
from reports.models import Webhook, WebhookDelivery
from tests.concurrency import run_concurrently
from tests.reports.factories import ProjectFactory
from tests.reports.webhook_receiver import Receiver

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_parallel_copies_of_one_attempt_deliver_once(user, settings):
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = True
    receiver = Receiver().start()
    try:
        project = ProjectFactory(owner=user)
        webhook = Webhook.objects.create(project=project, url=receiver.url, events=["report.done"], secret="s" * 20)
        delivery = WebhookDelivery.objects.create(
            webhook=webhook, event="report.done", body='{"created_at":"2026-11-24T00:00:00Z"}'
        )

        outcomes = run_concurrently(lambda: webhooks.deliver_webhook.call(delivery.pk, 1), times=6)
    finally:
        receiver.close()

    assert sorted(outcomes) == ["delivered"] + ["skipped"] * 5
    assert len(receiver.received) == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("delivered", 1)
