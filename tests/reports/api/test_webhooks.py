"""Webhooks: POST/GET /api/v1/projects/{project}/webhooks, DELETE …/webhooks/{id}, and signed deliveries."""

import hashlib
import hmac
import json
import time
from datetime import datetime

import pytest
from django.core import mail
from django.utils import timezone
from rest_framework import status

from reports import webhooks
from reports.models import Project, Report, Webhook, WebhookDelivery
from tests.reports.asserts import StartsWith, assert_reports_error
from tests.reports.factories import ProjectFactory, ReportFactory
from tests.reports.webhook_receiver import Receiver

pytestmark = pytest.mark.django_db

HOOKS = "/api/v1/projects/shop.example/webhooks"
SECRET = "a-receivers-secret-0123456789"


@pytest.fixture
def project(user):
    return ProjectFactory(owner=user, name="shop.example")


@pytest.fixture
def receiver(settings):
    # The receiver is on loopback: allowed only by the setting that allows it for report fetches.
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = True
    settings.REPORTS_WEBHOOK_BACKOFF = 0
    receiver = Receiver().start()
    yield receiver
    receiver.close()


def expected_signature(body: bytes, secret: str) -> str:
    """What a receiver computes, written out independently of reports.webhooks."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


# --- The API -------------------------------------------------------------------


def test_owner_adds_a_webhook_and_sees_a_generated_secret_once(owner_client, project):
    response = owner_client.post(HOOKS, {"url": "https://hooks.example/ci", "events": ["report.done"]}, format="json")

    assert response.status_code == status.HTTP_201_CREATED
    data = response.json()["data"]
    webhook = Webhook.objects.get()
    assert data == {
        "id": webhook.pk,
        "project": "shop.example",
        "url": "https://hooks.example/ci",
        "events": ["report.done"],
        "created_at": webhook.created_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "secret": webhook.secret,
    }
    assert data["secret"].startswith("whsec_") and len(data["secret"]) > 40
    listed = owner_client.get(HOOKS).json()["data"]
    assert [hook["id"] for hook in listed] == [webhook.pk]
    assert "secret" not in listed[0]


def test_a_given_secret_is_kept(owner_client, project):
    response = owner_client.post(
        HOOKS, {"url": "https://hooks.example/ci", "events": ["budget.failed"], "secret": SECRET}, format="json"
    )

    assert response.json()["data"]["secret"] == SECRET
    assert Webhook.objects.get().secret == SECRET


def test_owner_deletes_a_webhook(owner_client, project):
    webhook = Webhook.objects.create(
        project=project, url="https://hooks.example/", events=["report.done"], secret=SECRET
    )

    response = owner_client.delete(f"{HOOKS}/{webhook.pk}")

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"id": webhook.pk, "object": "webhook", "deleted": True, "status": 200}
    assert not Webhook.objects.exists()
    assert_reports_error(owner_client.delete(f"{HOOKS}/{webhook.pk}"), 404)


def test_another_owner_can_neither_see_add_nor_delete(other_client, project):
    webhook = Webhook.objects.create(
        project=project, url="https://hooks.example/", events=["report.done"], secret=SECRET
    )

    assert_reports_error(other_client.get(HOOKS), 404)
    assert_reports_error(
        other_client.post(HOOKS, {"url": "https://evil.example/", "events": ["report.done"]}, format="json"), 404
    )
    assert_reports_error(other_client.delete(f"{HOOKS}/{webhook.pk}"), 404)
    assert list(Webhook.objects.values_list("url", flat=True)) == ["https://hooks.example/"]


def test_a_webhook_of_another_project_is_not_found(owner_client, project, user):
    elsewhere = ProjectFactory(owner=user, name="blog.example")
    webhook = Webhook.objects.create(
        project=elsewhere, url="https://hooks.example/", events=["report.done"], secret=SECRET
    )

    assert_reports_error(owner_client.delete(f"{HOOKS}/{webhook.pk}"), 404)
    assert Webhook.objects.filter(pk=webhook.pk).exists()


def test_anonymous_is_unauthenticated(api_client, project):
    assert_reports_error(api_client.get(HOOKS), 401)
    assert_reports_error(api_client.post(HOOKS, {"url": "https://hooks.example/", "events": ["report.done"]}), 401)
    assert_reports_error(api_client.delete(f"{HOOKS}/1"), 401)


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({"events": ["report.done"]}, {"url": ["The url field is required."]}),
        (
            {"url": "ftp://hooks.example/", "events": ["report.done"]},
            {"url": ["The url must be a valid http or https URL."]},
        ),
        (
            {"url": "https://user:pw@hooks.example/", "events": ["report.done"]},
            {"url": ["The url must not contain a user name or password."]},
        ),
        (
            {"url": "http://127.0.0.1:8080/", "events": ["report.done"]},
            {"url": [StartsWith("The url points to a loopback address (127.0.0.1)")]},
        ),
        ({"url": "http://10.1.2.3/", "events": ["report.done"]}, {"url": [StartsWith("The url points to a private")]}),
        (
            {"url": "http://localhost/", "events": ["report.done"]},
            {"url": [StartsWith("The url points to a loopback")]},
        ),
        (  # IPv6's old site-local block, which Python's ipaddress counts as global
            {"url": "http://[fec0::1]/", "events": ["report.done"]},
            {"url": ["The url points to a site-local address (fec0::1); webhooks may only call public addresses."]},
        ),
        (
            {"url": "http://[64:ff9b:1::a00:1]/", "events": ["report.done"]},
            {"url": [StartsWith("The url points to a local NAT64 address")]},
        ),
        ({"url": "https://hooks.example/"}, {"events": ["The events field is required."]}),
        ({"url": "https://hooks.example/", "events": []}, {"events": ["The events must be a non-empty list."]}),
        (
            {"url": "https://hooks.example/", "events": "report.done"},
            {"events": ["The events must be a non-empty list."]},
        ),
        (
            {"url": "https://hooks.example/", "events": ["report.done", "page.viewed"]},
            {"events": [StartsWith("Unknown events: page.viewed; known: audit.done, report.done")]},
        ),
        (
            {"url": "https://hooks.example/", "events": ["report.done"], "secret": "short"},
            {"secret": ["The secret must be at least 16 characters."]},
        ),
        (
            {"url": "https://hooks.example/", "events": ["report.done"], "secret": 12345678901234567890},
            {"secret": ["The secret must be a string."]},
        ),
    ],
)
def test_bad_input_is_422_and_adds_nothing(owner_client, project, body, errors):
    assert_reports_error(owner_client.post(HOOKS, body, format="json"), 422, errors)
    assert not Webhook.objects.exists()


def test_private_targets_are_allowed_with_the_report_fetchers_setting(owner_client, project, settings):
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = True

    response = owner_client.post(HOOKS, {"url": "http://127.0.0.1:8080/", "events": ["report.done"]}, format="json")

    assert response.status_code == status.HTTP_201_CREATED


# --- Deliveries ----------------------------------------------------------------


def test_a_real_analysis_delivers_signed_report_budget_and_regression_alerts(owner_client, test_site, receiver, user):
    # First analysis of the page: no previous one, so nothing can have regressed.
    created = owner_client.post("/api/v1/reports", {"url": test_site.url("/good")})
    assert created.status_code == status.HTTP_201_CREATED
    report = Report.objects.get()
    project = report.project.name  # 127.0.0.1
    hook = owner_client.post(
        f"/api/v1/projects/{project}/webhooks",
        {"url": receiver.url, "events": ["report.done", "budget.failed", "check.regressed"]},
        format="json",
    ).json()["data"]
    owner_client.patch(f"/api/v1/projects/{project}", {"budget": {"min_score": 100}}, format="json")
    # Pretend the last analysis passed every check: the page has since got worse.
    passing = {
        category: {key: {**check, "passed": True} for key, check in checks.items()}
        for category, checks in report.results.items()
    }
    Report.objects.filter(pk=report.pk).update(results=passing, score=100)

    rerun = owner_client.patch(f"/api/v1/reports/{report.pk}", {"results": 1}, format="json")

    assert rerun.status_code == status.HTTP_200_OK
    events = {}
    for delivery in receiver.received:
        payload = json.loads(delivery.body)
        events[payload["event"]] = (delivery, payload)
        # The signature a receiver computes from the raw body and its secret matches.
        assert delivery.headers["X-Webtools-Signature"] == expected_signature(delivery.body, hook["secret"])
        assert set(payload) == {"event", "created_at", "data"}
        # The timestamp is the signed created_at, recent enough to be no replay.
        sent_at = datetime.fromisoformat(payload["created_at"]).timestamp()
        assert int(delivery.headers["X-Webtools-Timestamp"]) == int(sent_at)
        assert abs(time.time() - sent_at) < 300
    assert set(events) == {"report.done", "budget.failed", "check.regressed"}
    assert events["report.done"][1]["data"]["id"] == report.pk
    assert events["report.done"][1]["data"]["budget"]["passed"] is False
    assert events["budget.failed"][1]["data"]["budget"]["failures"][0]["rule"] == "min_score"
    regressed = events["check.regressed"][1]["data"]
    assert regressed["score"]["with"] == 100
    assert regressed["checks"] and {check["status"] for check in regressed["checks"]} == {"regressed"}
    assert regressed["checks"] == [c for c in regressed["checks"] if c["passed"] is False and c["passed_before"]]
    assert WebhookDelivery.objects.filter(status="delivered").count() == 3


def test_check_regressed_compares_with_the_previous_report_of_the_same_url(receiver, user):
    project = ProjectFactory(owner=user)
    Webhook.objects.create(project=project, url=receiver.url, events=["check.regressed"], secret=SECRET)
    before = ReportFactory(owner=user, project=project)  # image_keywords fails, title passes
    results = json.loads(json.dumps(before.results))
    results["seo"]["title"]["passed"] = False
    now = ReportFactory(owner=user, project=project, url=before.url, results=results)

    assert webhooks.analysis_finished(now.pk) == 1

    payload = json.loads(receiver.received[0].body)
    assert payload["data"]["with"]["id"] == before.pk
    assert [check["check"] for check in payload["data"]["checks"]] == ["title"]


def test_a_delivery_is_retried_after_a_500_with_the_same_signed_body(receiver, user, settings):
    receiver.statuses = [500, 502]
    project = ProjectFactory(owner=user)
    Webhook.objects.create(project=project, url=receiver.url, events=["report.done"], secret=SECRET)

    webhooks.send_event(project, "report.done", {"id": 1})

    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("delivered", 3, 200)
    assert delivery.delivered_at is not None
    assert len(receiver.received) == 3
    assert len({(r.body, r.headers["X-Webtools-Signature"]) for r in receiver.received}) == 1
    assert receiver.received[0].body == delivery.body.encode()


def test_a_delivery_gives_up_after_the_last_attempt(receiver, user, settings):
    settings.REPORTS_WEBHOOK_MAX_ATTEMPTS = 3
    receiver.statuses = [500] * 10
    project = ProjectFactory(owner=user)
    Webhook.objects.create(project=project, url=receiver.url, events=["report.done"], secret=SECRET)

    webhooks.send_event(project, "report.done", {"id": 1})

    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.error) == ("failed", 3, "The receiver answered 500.")
    assert len(receiver.received) == 3


def test_the_ssrf_guard_refuses_a_private_target_at_delivery(receiver, user, settings):
    project = ProjectFactory(owner=user)
    Webhook.objects.create(project=project, url=receiver.url, events=["report.done"], secret=SECRET)
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = False  # e.g. a DNS name that now resolves to loopback
    settings.REPORTS_WEBHOOK_MAX_ATTEMPTS = 2

    webhooks.send_event(project, "report.done", {"id": 1})

    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "failed"
    assert delivery.error == "The address 127.0.0.1 is private; fetching it is not allowed."
    assert receiver.received == []


def test_with_the_database_backend_a_retry_waits_its_backoff(receiver, user, settings):
    from django_tasks_db.models import DBTaskResult

    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    settings.REPORTS_WEBHOOK_BACKOFF = 30
    receiver.statuses = [500]
    project = ProjectFactory(owner=user)
    Webhook.objects.create(project=project, url=receiver.url, events=["report.done"], secret=SECRET)

    webhooks.send_event(project, "report.done", {"id": 1})
    delivery = WebhookDelivery.objects.get()
    assert webhooks.deliver_webhook.call(delivery.pk, 1) == "retrying"

    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("pending", 1, 500)
    retry = DBTaskResult.objects.filter(args_kwargs__args=[delivery.pk, 2]).get()
    assert abs((retry.run_after - delivery.next_attempt_at).total_seconds()) < 1
    assert 25 < (retry.run_after - timezone.now()).total_seconds() <= 30
    # A duplicate of the first attempt's task does nothing.
    assert webhooks.deliver_webhook.call(delivery.pk, 1) == "skipped"


def test_alert_email_gets_budget_failures(user):  # the test mail backend keeps mail.outbox
    project = ProjectFactory(owner=user, alert_email="ops@shop.example", budget={"min_score": 90})
    report = ReportFactory(owner=user, project=project, score=74)

    webhooks.analysis_finished(report.pk)

    assert [message.to for message in mail.outbox] == [["ops@shop.example"]]
    assert "budget.failed" in mail.outbox[0].subject
    assert "The score is 74, below the minimum of 90." in mail.outbox[0].body


def test_no_email_without_an_alert_address(user):
    project = ProjectFactory(owner=user, budget={"min_score": 90})
    report = ReportFactory(owner=user, project=project, score=74)

    assert webhooks.analysis_finished(report.pk) == 0
    assert mail.outbox == []
    assert Project.objects.get(pk=project.pk).alert_email == ""
