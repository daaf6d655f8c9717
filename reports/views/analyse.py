"""Asking for a report from the browser: the form, the progress page and the status it polls.

The form queues the analysis with the same service as the API (services.report_create,
run on Django's tasks framework by reports/tasks.py) and sends the browser to the
report's progress page. That page shows queued → running → done (or failed, with
the cause) and a small script (static/reports/progress.js) polls the JSON status
until the report is done, then goes to the report page. All of it is the owner's
alone: another user gets a 404, as on the API.
"""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from common.sign_in import signed_in
from reports import services
from reports.forms import ReportCreateForm
from reports.models import Report
from reports.stored_messages import translated

# What each state means to the person waiting.
STATUS_TEXTS = {
    Report.Status.QUEUED: _("Queued: waiting for a worker to start the analysis."),
    Report.Status.RUNNING: _("Running: fetching the page and checking it."),
    Report.Status.DONE: _("Done: opening the report."),
    Report.Status.FAILED: _("Failed: the page could not be analysed."),
}
STEPS = (Report.Status.QUEUED, Report.Status.RUNNING, Report.Status.DONE)


def _own_report(request: HttpRequest, report_id: int) -> Report:
    return get_object_or_404(Report.objects.owned_by(request.user).select_related("project"), pk=report_id)


def _steps(status: str) -> list[dict[str, str]]:
    """The steps with their state as progress.js sets it: passed ("is-done"), "is-current" or ahead ("")."""
    reached = STEPS.index(status) if status in STEPS else -1
    return [
        {"key": step, "label": step.label, "state": "is-done" if i < reached else "is-current" if i == reached else ""}
        for i, step in enumerate(STEPS)
    ]


def status_body(report: Report) -> dict:
    """The status progress.js shows: `text` in the reader's language (this JSON is the page's, not the API's)."""
    return {
        "id": report.pk,
        "status": str(report.status),
        "text": str(STATUS_TEXTS[report.status]),
        "error": translated(report.error) if report.error else None,
        "report_url": report.get_absolute_url(),
    }


@require_http_methods(["GET", "HEAD", "POST"])
@signed_in
def report_new(request: HttpRequest) -> HttpResponse:
    data = request.POST if request.method == "POST" else None
    form = ReportCreateForm(data, initial={"url": request.GET.get("url", "")})
    if request.method == "POST" and form.is_valid():
        report = services.report_create(owner=request.user, **form.cleaned_data)
        return redirect("reports:report-progress", report_id=report.pk)
    status = 422 if form.is_bound else 200
    return render(request, "reports/report_new.html", {"form": form}, status=status)


@require_safe
@signed_in
@never_cache
def report_progress(request: HttpRequest, report_id: int) -> HttpResponse:
    report = _own_report(request, report_id)
    if report.status == Report.Status.DONE:
        return redirect(report)
    context = {"report": report, "status": status_body(report), "steps": _steps(report.status)}
    return render(request, "reports/report_progress.html", context)


@require_safe
@never_cache
def report_status(request: HttpRequest, report_id: int) -> JsonResponse:
    """`{id, status, text, error, report_url}` for the report's owner, signed in."""
    if not request.user.is_authenticated:
        return JsonResponse({"message": "Sign in first.", "status": 401}, status=401)
    report = Report.objects.owned_by(request.user).filter(pk=report_id).first()
    if report is None:
        return JsonResponse({"message": "Resource not found.", "status": 404}, status=404)
    return JsonResponse(status_body(report))


@require_POST
@signed_in
def report_rerun(request: HttpRequest, report_id: int) -> HttpResponse:
    """Queue a new analysis of the report's URL and follow it on the progress page."""
    report = _own_report(request, report_id)
    services.report_refresh(report=report)
    return redirect("reports:report-progress", report_id=report.pk)
