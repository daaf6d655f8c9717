"""A finished audit's events, through the project's webhooks and alert e-mail (reports/webhooks.py).

- `audit.done`: every finished audit, with the audit as the API shows it (summary and budget included);
- `budget.failed`: the audit misses the project's budget (`{project, audit, budget}`);
- `check.regressed`: a check that passed on every page of the previous finished audit of the
  same start page in the project fails on some page now (`{project, audit, with, score, checks}`).

The pages of an audit send no `report.done` of their own: one event per audit, not 500.
"""

from reports import webhooks
from reports.audits import summary
from reports.models import Audit, WebhookEvent
from reports.serializers import AuditSerializer


def previous_audit(audit: Audit) -> Audit | None:
    return (
        Audit.objects.filter(project_id=audit.project_id, url=audit.url, status=Audit.Status.DONE, pk__lt=audit.pk)
        .order_by("-pk")
        .first()
    )


def audit_finished(audit_id: int) -> int:
    """Queue the finished audit's deliveries and mails; how many."""
    audit = Audit.objects.select_related("project").filter(pk=audit_id).first()
    if audit is None or audit.status != Audit.Status.DONE:
        return 0
    project = audit.project
    data = AuditSerializer(audit).data
    events: list[tuple[str, dict]] = [(WebhookEvent.AUDIT_DONE, data)]
    verdict = data["budget"]
    side = {"id": audit.pk, "url": audit.url, "score": audit.summary.get("score")}
    if verdict is not None and not verdict["passed"]:
        events.append((WebhookEvent.BUDGET_FAILED, {"project": project.name, "audit": side, "budget": verdict}))
    baseline = previous_audit(audit)
    if baseline is not None:
        compared = summary.compare(audit, baseline)
        if compared.regressed():
            as_json = compared.to_json()
            events.append(
                (
                    WebhookEvent.CHECK_REGRESSED,
                    {
                        "project": project.name,
                        "audit": as_json["report"],
                        "with": as_json["with"],
                        "score": compared.score,
                        "checks": compared.regressed(),
                    },
                )
            )
    return sum(webhooks.send_event(project, event, payload) for event, payload in events)
