"""The public page of a report, /reports/<id>, which honours the report's privacy.

- 0 public: anyone.
- 1 private: only the owner, signed in (Django session); anyone else gets a 404,
  which does not reveal that the report exists.
- 2 password: a password form; the right password unlocks the report for the
  session, until the owner changes the password. The owner, signed in, needs none.
  Attempts are limited per client address and report
  (REPORTS_PAGE_PASSWORD_ATTEMPTS per REPORTS_PAGE_PASSWORD_PERIOD seconds).
"""

from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import patch_cache_control
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.http import content_disposition_header
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_safe

from common.paging import streamed_json
from reports import comparison, presentation
from reports.forms import ReportPasswordForm
from reports.models import Audit, Report
from reports.serializers import ReportSerializer
from reports.throttling import PagePasswordThrottle

UNLOCKED_SESSION_KEY = "reports:unlocked"
WRONG_PASSWORD = _("The password is incorrect.")


def too_many_attempts(retry_after: int) -> str:
    return ngettext(
        "Too many attempts. Try again in %(seconds)d second.",
        "Too many attempts. Try again in %(seconds)d seconds.",
        retry_after,
    ) % {"seconds": retry_after}


def rated(gauges: list[dict]) -> list[dict]:
    """The gauges with their rating in words (good, decent, bad) in the reader's language."""
    labels = dict(Report.Result.choices)
    return [{**gauge, "rating_label": labels.get(gauge["rating"], gauge["rating"])} for gauge in gauges]


def _unlock_token(report: Report) -> str:
    # Bound to the password hash, so a new password locks the page again.
    return salted_hmac("reports.page-unlock", f"{report.pk}:{report.password}", algorithm="sha256").hexdigest()


def _is_unlocked(request: HttpRequest, report: Report) -> bool:
    token = request.session.get(UNLOCKED_SESSION_KEY, {}).get(str(report.pk), "")
    return constant_time_compare(token, _unlock_token(report))


def _unlock(request: HttpRequest, report: Report) -> None:
    unlocked = request.session.get(UNLOCKED_SESSION_KEY, {})
    unlocked[str(report.pk)] = _unlock_token(report)
    request.session[UNLOCKED_SESSION_KEY] = unlocked


def _password_page(request: HttpRequest, report: Report) -> HttpResponse:
    form = ReportPasswordForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        attempt = PagePasswordThrottle(report.pk).hit(request)
        if not attempt.allowed:
            status = 429
            form.add_error(None, too_many_attempts(attempt.retry_after))
        elif form.is_valid() and report.check_page_password(form.cleaned_data["password"]):
            _unlock(request, report)
            return redirect(report)
        elif form.is_valid():
            form.add_error("password", WRONG_PASSWORD)
    response = render(request, "reports/report_password.html", {"report": report, "form": form}, status=status)
    if status == 429:
        response["Retry-After"] = str(attempt.retry_after)
    return response


def _readable(request: HttpRequest, report_id: int) -> tuple[Report, bool, bool]:
    """The report, whether the requester owns it and whether its page is open to them.

    A private report is a 404 to anyone but its owner; a password-protected one is
    open to its owner and to a session that gave the password.
    """
    report = get_object_or_404(Report.objects.select_related("project"), pk=report_id)
    is_owner = request.user.is_authenticated and request.user.pk == report.owner_id
    if report.privacy == Report.Privacy.PRIVATE and not is_owner:
        raise Http404("No such report.")
    is_open = report.privacy != Report.Privacy.PASSWORD or is_owner or _is_unlocked(request, report)
    return report, is_owner, is_open


def keep_private(response: HttpResponse, *shown: Report | Audit) -> HttpResponse:
    """Keep the page out of shared caches if any report or audit it shows is not public."""
    if any(item.privacy != Report.Privacy.PUBLIC for item in shown):
        patch_cache_control(response, private=True, no_store=True)
    return response


def comparison_page(
    request: HttpRequest, subject: Report | Audit, baseline: Report | Audit, compared, *, kind: str
) -> HttpResponse:
    """The API's comparison of two reports (or two audits) as a page, private if either side is."""
    context = {
        "subject": subject,
        "baseline": baseline,
        "compared": compared,
        "kind": kind,
        "categories": [
            {"name": name, "label": presentation.CATEGORY_LABELS.get(name, presentation.humanize(name)), **values}
            for name, values in compared.categories.items()
        ],
        "checks": [
            {
                **check,
                "label": presentation.humanize(check["check"]),
                "category_label": presentation.CATEGORY_LABELS.get(check["category"], check["category"]),
            }
            for check in compared.checks
            if check["status"] != comparison.UNCHANGED
        ],
    }
    return keep_private(render(request, "reports/compare.html", context), subject, baseline)


@require_http_methods(["GET", "HEAD", "POST"])
def report_page(request: HttpRequest, report_id: int) -> HttpResponse:
    report, is_owner, is_open = _readable(request, report_id)
    if not is_open:
        response = _password_page(request, report)
    elif request.method == "POST":
        return redirect(report)
    elif report.generated_at is None and is_owner:
        # Never analysed yet (queued, running, or its first analysis failed): its owner follows it there.
        return redirect("reports:report-progress", report_id=report.pk)
    else:
        response = render(request, "reports/report.html", _report_context(request, report, is_owner))
    return keep_private(response, report)


def _report_context(request: HttpRequest, report: Report, is_owner: bool) -> dict:
    """The report page's context; `category` and `importance` filter the checks shown (others fall back to all)."""
    views = presentation.categories(report.results, report.scores)
    category = request.GET.get("category", "")
    category = category if category in {view.key for view in views} else ""
    importance = request.GET.get("importance", "")
    importance = importance if importance in presentation.IMPORTANCE_LABELS else ""
    shown = presentation.filtered(views, category, importance)
    return {
        "report": report,
        "categories": shown,
        "category_choices": [(view.key, view.label) for view in views],
        "importance_choices": list(presentation.IMPORTANCE_LABELS.items()),
        "chosen": {"category": category, "importance": importance},
        "gauges": rated(presentation.category_gauges(report.scores)),
        "lab_metrics": presentation.lab_metrics((report.rendering or {}).get("metrics")),
        "failed_count": sum(len(view.failed_checks) for view in shown),
        "passed_count": sum(len(view.passed_checks) for view in shown),
        "is_owner": is_owner,
        "previous": _previous_report(report, is_owner),
    }


def _previous_report(report: Report, is_owner: bool) -> Report | None:
    """The latest other analysed report of the same URL that the requester may read, to compare with."""
    if report.generated_at is None:
        return None
    candidates = Report.objects.filter(project_id=report.project_id, url=report.url, generated_at__isnull=False)
    if not is_owner:
        candidates = candidates.filter(privacy=Report.Privacy.PUBLIC)
    return candidates.exclude(pk=report.pk).order_by("-generated_at", "-pk").only("pk", "generated_at").first()


@require_safe
def report_compare(request: HttpRequest, report_id: int) -> HttpResponse:
    """/reports/<id>/compare?with=<other>: the API's comparison, for whoever may read both pages."""
    report, _, is_open = _readable(request, report_id)
    if not is_open:
        return redirect(report)  # its password first
    other_id = request.GET.get("with", "").strip()
    if not other_id.isdigit():
        raise Http404("No report to compare with.")
    baseline, _, baseline_open = _readable(request, int(other_id))
    if not baseline_open:
        return redirect(baseline)
    if report.generated_at is None or baseline.generated_at is None:
        raise Http404("A report without results cannot be compared.")
    return comparison_page(request, report, baseline, comparison.compare(report, baseline), kind="report")


@require_safe
def report_download(request: HttpRequest, report_id: int) -> HttpResponse:
    """The report as a JSON file: the API's record of it, for whoever may read its page."""
    report, _, is_open = _readable(request, report_id)
    if not is_open:
        return redirect(report)  # the page asks for the password, then the link works
    # Streamed as the encoder writes it: a report's results are encoded piece by piece and
    # never held whole as one string next to the data they come from.
    chunks = streamed_json(ReportSerializer(report).data, indent=2, ensure_ascii=False)
    response = StreamingHttpResponse(chunks, content_type="application/json")
    filename = f"report-{report.pk}-{report.project.name}.json"
    response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=filename)
    return keep_private(response, report)
