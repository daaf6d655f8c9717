"""The page of a site audit, /audits/<id>, and its comparison, honouring the audit's privacy as report pages do.

0 public; 1 only its owner, signed in (anyone else: 404); 2 its owner, or a session that gave
the password (attempts limited per address like a report's). While the audit runs the page
shows its progress and reloads itself every few seconds (no script needed); once done, the
grouped issues (worst first, each with the pages it fails on) and the pages.
"""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.crypto import constant_time_compare, salted_hmac
from django.views.decorators.http import require_http_methods, require_safe

from reports import budgets, presentation
from reports.audits import summary
from reports.forms import ReportPasswordForm
from reports.models import Audit, Report
from reports.throttling import PagePasswordThrottle
from reports.views.pages import WRONG_PASSWORD, comparison_page, keep_private, rated, too_many_attempts

UNLOCKED_SESSION_KEY = "reports:unlocked-audits"
# How many pages the page lists; the exports list them all.
PAGES_SHOWN = 500


def _unlock_token(audit: Audit) -> str:
    return salted_hmac("reports.audit-unlock", f"{audit.pk}:{audit.password}", algorithm="sha256").hexdigest()


def _readable(request: HttpRequest, audit_id: int) -> tuple[Audit, bool, bool]:
    audit = get_object_or_404(Audit.objects.select_related("project"), pk=audit_id)
    is_owner = request.user.is_authenticated and request.user.pk == audit.owner_id
    if audit.privacy == Audit.Privacy.PRIVATE and not is_owner:
        raise Http404("No such audit.")
    unlocked = constant_time_compare(
        request.session.get(UNLOCKED_SESSION_KEY, {}).get(str(audit.pk), ""), _unlock_token(audit)
    )
    return audit, is_owner, audit.privacy != Audit.Privacy.PASSWORD or is_owner or unlocked


def _password_page(request: HttpRequest, audit: Audit) -> HttpResponse:
    form = ReportPasswordForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        attempt = PagePasswordThrottle(f"audit-{audit.pk}").hit(request)
        if not attempt.allowed:
            status = 429
            form.add_error(None, too_many_attempts(attempt.retry_after))
        elif form.is_valid() and audit.check_page_password(form.cleaned_data["password"]):
            unlocked = request.session.get(UNLOCKED_SESSION_KEY, {})
            unlocked[str(audit.pk)] = _unlock_token(audit)
            request.session[UNLOCKED_SESSION_KEY] = unlocked
            return redirect(audit)
        elif form.is_valid():
            form.add_error("password", WRONG_PASSWORD)
    response = render(request, "reports/audit_password.html", {"audit": audit, "form": form}, status=status)
    if status == 429:
        response["Retry-After"] = str(attempt.retry_after)
    return response


def _label(issue: dict) -> dict:
    return {
        **issue,
        "label": presentation.humanize(issue["check"]),
        "category_label": presentation.CATEGORY_LABELS.get(issue["category"], issue["category"]),
    }


def _budget_in_words(audit: Audit) -> dict | None:
    """The budget's verdict, each failure told in the reader's language (its `message` stays the API's English)."""
    verdict = summary.budget(audit)
    if verdict is not None:
        for failure in verdict["failures"]:
            failure["text"] = budgets.failure_text(failure, mean=True)
    return verdict


@require_http_methods(["GET", "HEAD", "POST"])
def audit_page(request: HttpRequest, audit_id: int) -> HttpResponse:
    audit, is_owner, is_open = _readable(request, audit_id)
    if not is_open:
        return keep_private(_password_page(request, audit), audit)
    if request.method == "POST":
        return redirect(audit)
    pages = audit.pages.order_by("pk").only("pk", "url", "status", "score", "result", "error")[:PAGES_SHOWN]
    context = {
        "audit": audit,
        "is_owner": is_owner,
        "summary": audit.summary if audit.status == Audit.Status.DONE else None,
        "issues": [_label(issue) for issue in (audit.summary or {}).get("issues", [])],
        "gauges": rated(presentation.category_gauges((audit.summary or {}).get("scores", {}))),
        "budget": _budget_in_words(audit),
        "pages": pages,
        "pages_shown": PAGES_SHOWN,
        "previous": _previous(audit, is_owner),
        "page_status": Report.Status,
    }
    return keep_private(render(request, "reports/audit.html", context), audit)


def _previous(audit: Audit, is_owner: bool) -> Audit | None:
    if audit.status != Audit.Status.DONE:
        return None
    candidates = Audit.objects.filter(project_id=audit.project_id, url=audit.url, status=Audit.Status.DONE)
    if not is_owner:
        candidates = candidates.filter(privacy=Audit.Privacy.PUBLIC)
    return candidates.filter(pk__lt=audit.pk).order_by("-pk").only("pk").first()


@require_safe
def audit_compare(request: HttpRequest, audit_id: int) -> HttpResponse:
    """/audits/<id>/compare?with=<other>: the API's comparison, for whoever may read both audit pages."""
    audit, _, is_open = _readable(request, audit_id)
    if not is_open:
        return redirect(audit)
    other_id = request.GET.get("with", "").strip()
    if not other_id.isdigit():
        raise Http404("No audit to compare with.")
    baseline, _, baseline_open = _readable(request, int(other_id))
    if not baseline_open:
        return redirect(baseline)
    if audit.status != Audit.Status.DONE or baseline.status != Audit.Status.DONE:
        raise Http404("An audit that is not done cannot be compared.")
    return comparison_page(request, audit, baseline, summary.compare(audit, baseline), kind="audit")
