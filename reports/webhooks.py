"""Signed alerts: a project's webhooks, their deliveries on the task engine, and alert e-mails.

When an analysis finishes (reports/tasks.py calls `analysis_finished`), the project's
webhooks that subscribe to an event get one delivery each:

- `report.done`: every finished analysis, with the report as the API shows it;
- `budget.failed`: the report misses the project's budget (reports/budgets.py);
- `check.regressed`: a check that passed in the previous analysis of the same URL (the
  report's own last results on a re-run, else the project's latest other report of that
  URL) fails now (reports/comparison.py).

A delivery POSTs `{"event", "created_at", "data"}` with

    X-Webtools-Signature: sha256=<hex HMAC-SHA256 of the raw body, keyed with the webhook's secret>
    X-Webtools-Timestamp: <the event's time, Unix seconds; the same instant as created_at in the body>

so a receiver checks the signature and refuses a timestamp older than a few minutes
(a replay). The body is stored with the delivery, so a retry sends the same signed bytes.

Each attempt is a task (`deliver_webhook`) on the same engine as analyses, which ends within
REPORTS_WEBHOOK_TIMEOUT seconds in all and reads at most REPORTS_WEBHOOK_MAX_ANSWER_BYTES of the
answer (its status and headers; the body is never read). A 2xx answer delivers it;
anything else (an error status, a redirect, a timeout, a refused address, an answer too
long) is retried after REPORTS_WEBHOOK_BACKOFF * 2^(attempt-1) seconds, up to
REPORTS_WEBHOOK_MAX_ATTEMPTS attempts, and then the delivery is marked failed. The
target goes through the report fetcher's SSRF guard (reports.analysis.fetch) and the
same REPORTS_ALLOW_PRIVATE_NETWORKS setting; redirects are not followed.

A project's `alert_email`, when set, gets `budget.failed` and `check.regressed` by mail
(Django's mail backend), also as a task.
"""

import hashlib
import hmac
import json
import logging
import secrets
import time
from datetime import UTC, datetime, timedelta

import httpx
from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.tasks import task
from django.utils import timezone

from reports import budgets, comparison
from reports.analysis.errors import AnalysisError
from reports.analysis.fetch import AnswerTooLong, GuardedTransport, format_seconds
from reports.models import Project, Report, WebhookDelivery, WebhookEvent
from reports.serializers import ReportSerializer

logger = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Webtools-Signature"
TIMESTAMP_HEADER = "X-Webtools-Timestamp"
EMAILED_EVENTS = (WebhookEvent.BUDGET_FAILED, WebhookEvent.CHECK_REGRESSED)


def new_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


def sign(body: bytes, secret: str) -> str:
    """The X-Webtools-Signature value of `body`."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify(body: bytes, secret: str, signature: str) -> bool:
    """What a receiver does: compare the signature in constant time."""
    return hmac.compare_digest(sign(body, secret), signature)


# --- Events ------------------------------------------------------------------


def _report_data(report: Report) -> dict:
    return ReportSerializer(report).data


def previous_analysis(report: Report, before: dict | None) -> Report | None:
    """The analysis `report` is compared with for check.regressed (see the module docstring)."""
    if before and before.get("generated_at") is not None:
        return Report(
            pk=report.pk,
            url=report.url,
            score=before["score"],
            result=before["result"],
            results=before["results"],
            generated_at=before["generated_at"],
        )
    return (
        Report.objects.filter(project_id=report.project_id, url=report.url, generated_at__isnull=False)
        .exclude(pk=report.pk)
        .order_by("-generated_at", "-pk")
        .first()
    )


def analysis_finished(report_id: int, before: dict | None = None) -> int:
    """Send the events of a finished analysis; return how many deliveries and mails were queued.

    `before` is the report's score, result, results and generated_at as they were before
    this analysis (None for a first analysis).
    """
    report = Report.objects.select_related("project").filter(pk=report_id).first()
    if report is None or report.status != Report.Status.DONE:
        return 0
    project = report.project
    events: list[tuple[str, dict]] = [(WebhookEvent.REPORT_DONE, _report_data(report))]
    verdict = budgets.evaluate(project.budget, score=report.score, results=report.results)
    if verdict is not None and not verdict["passed"]:
        events.append(
            (
                WebhookEvent.BUDGET_FAILED,
                {"report": comparison.side(report), "budget": verdict, "project": project.name},
            )
        )
    baseline = previous_analysis(report, before)
    if baseline is not None:
        compared = comparison.compare(report, baseline)
        if compared.regressed():
            events.append(
                (
                    WebhookEvent.CHECK_REGRESSED,
                    {
                        "project": project.name,
                        "report": compared.to_json()["report"],
                        "with": compared.to_json()["with"],
                        "score": compared.score,
                        "checks": compared.regressed(),
                    },
                )
            )
    return sum(send_event(project, event, data) for event, data in events)


def send_event(project: Project, event: str, data: dict) -> int:
    """Queue a delivery of `event` to each of the project's webhooks that wants it, and its e-mail."""
    created_at = timezone.now()
    body = json.dumps(
        {
            "event": str(event),
            "created_at": created_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
            "data": data,
        },
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    queued = 0
    for webhook in project.webhooks.all():
        if str(event) not in webhook.events:
            continue
        with transaction.atomic():
            delivery = WebhookDelivery.objects.create(webhook=webhook, event=event, body=body)
        _enqueue_attempt(delivery.pk, 1)
        queued += 1
    if project.alert_email and event in EMAILED_EVENTS:
        send_alert_email.enqueue(project.alert_email, str(event), body)
        queued += 1
    return queued


# --- Deliveries --------------------------------------------------------------


def backoff(attempt: int) -> float:
    """Seconds to wait after failed attempt number `attempt` (1, 2, …): doubling from REPORTS_WEBHOOK_BACKOFF."""
    return settings.REPORTS_WEBHOOK_BACKOFF * 2 ** (attempt - 1)


def _enqueue_attempt(delivery_id: int, attempt: int, *, delay: float = 0) -> None:
    backend = deliver_webhook.get_backend()
    if delay and backend.supports_defer:
        deliver_webhook.using(run_after=timezone.now() + timedelta(seconds=delay)).enqueue(delivery_id, attempt)
    else:  # the immediate backend (tests) runs the retry at once
        deliver_webhook.enqueue(delivery_id, attempt)


def event_time(body: str) -> datetime:
    """The event's `created_at`, read back from the signed body so that header and body agree."""
    return datetime.fromisoformat(json.loads(body)["created_at"])


def _post(delivery: WebhookDelivery) -> httpx.Response:
    body = delivery.body.encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": settings.REPORTS_USER_AGENT,
        SIGNATURE_HEADER: sign(body, delivery.webhook.secret),
        TIMESTAMP_HEADER: str(int(event_time(delivery.body).timestamp())),
        "X-Webtools-Event": delivery.event,
        "X-Webtools-Delivery": str(delivery.pk),
        "Accept-Encoding": "identity",
    }
    # The report fetcher's transport: its SSRF guard vets every address it connects to. The whole
    # attempt ends at REPORTS_WEBHOOK_TIMEOUT and reads at most REPORTS_WEBHOOK_MAX_ANSWER_BYTES: a
    # receiver trickling its answer, or sending 1 GiB, once held a worker thread for minutes or its memory.
    transport = GuardedTransport(
        allow_private=settings.REPORTS_ALLOW_PRIVATE_NETWORKS,
        max_connections=1,
        deadline=time.monotonic() + settings.REPORTS_WEBHOOK_TIMEOUT,
        max_read=settings.REPORTS_WEBHOOK_MAX_ANSWER_BYTES,
    )
    with (
        httpx.Client(
            transport=transport, follow_redirects=False, trust_env=False, timeout=settings.REPORTS_WEBHOOK_TIMEOUT
        ) as client,
        client.stream("POST", delivery.webhook.url, content=body, headers=headers) as response,
    ):
        # Only the status counts: the body is never read, so never unpacked either.
        return response


@task()
def deliver_webhook(delivery_id: int, attempt: int) -> str:
    """Make attempt number `attempt` of the delivery, once; queue the next one on failure."""
    # The conditional UPDATE claims this attempt: a duplicate task finds it taken and does nothing.
    claimed = WebhookDelivery.objects.filter(
        pk=delivery_id, status=WebhookDelivery.Status.PENDING, attempts=attempt - 1
    ).update(attempts=attempt, next_attempt_at=None)
    delivery = WebhookDelivery.objects.select_related("webhook").filter(pk=delivery_id).first() if claimed else None
    if delivery is None:
        return "skipped"
    response_status, error = None, ""
    try:
        response = _post(delivery)
    except AnalysisError as exc:  # the SSRF guard refused the address
        error = str(exc)
    except httpx.HTTPError as exc:
        error = _transport_error(exc)
    else:
        response_status = response.status_code
        if not 200 <= response.status_code < 300:
            error = f"The receiver answered {response.status_code}."
    if not error:
        WebhookDelivery.objects.filter(pk=delivery_id).update(
            status=WebhookDelivery.Status.DELIVERED,
            response_status=response_status,
            error="",
            delivered_at=timezone.now(),
        )
        return "delivered"
    if attempt >= settings.REPORTS_WEBHOOK_MAX_ATTEMPTS:
        WebhookDelivery.objects.filter(pk=delivery_id).update(
            status=WebhookDelivery.Status.FAILED, response_status=response_status, error=error
        )
        return "failed"
    delay = backoff(attempt)
    WebhookDelivery.objects.filter(pk=delivery_id).update(
        response_status=response_status, error=error, next_attempt_at=timezone.now() + timedelta(seconds=delay)
    )
    _enqueue_attempt(delivery_id, attempt + 1, delay=delay)
    return "retrying"


def _transport_error(exc: httpx.HTTPError) -> str:
    if isinstance(exc, httpx.TimeoutException):
        return f"The receiver did not answer within {format_seconds(settings.REPORTS_WEBHOOK_TIMEOUT)}."
    cause: BaseException | None = exc
    while cause is not None:  # the guard's refusal, or the answer's cap, arrives wrapped by httpx
        if isinstance(cause, AnalysisError):
            return str(cause)
        if isinstance(cause, AnswerTooLong):
            return f"The receiver's answer is longer than {settings.REPORTS_WEBHOOK_MAX_ANSWER_BYTES} bytes."
        cause = cause.__cause__ or cause.__context__
    return f"The request failed: {exc.__class__.__name__}: {exc}"


@task()
def send_alert_email(address: str, event: str, body: str) -> str:
    payload = json.loads(body)
    data = payload["data"]
    # A report's event names its report; a site audit's, its audit (reports/audits/alerts.py).
    noun = "audit" if "audit" in data else "report"
    report = data.get(noun, {})
    subject = f"[{settings.SERVICE_NAME}] {event}: {report.get('url', data.get('project', ''))}"
    if event == WebhookEvent.BUDGET_FAILED:
        text = f"The {noun} misses its project's budget:\n\n" + "\n".join(
            f"- {failure['message']}" for failure in data["budget"]["failures"]
        )
    else:
        text = f"Score {data['score']['with']} → {data['score']['report']}. Checks that regressed:\n\n" + "\n".join(
            f"- {check['check']} ({check['category']}, {check['importance']} importance)" for check in data["checks"]
        )
    send_mail(subject, f"{text}\n\n{noun.capitalize()} #{report.get('id')}: {report.get('url')}\n", None, [address])
    return "sent"
