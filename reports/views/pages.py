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
from django.views.decorators.http import require_http_methods, require_safe

from common.paging import streamed_json
from reports import presentation
from reports.forms import ReportPasswordForm
from reports.models import Report
from reports.serializers import ReportSerializer
from reports.throttling import PagePasswordThrottle

UNLOCKED_SESSION_KEY = "reports:unlocked"
WRONG_PASSWORD = "The password is incorrect."


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
            form.add_error(None, f"Too many attempts. Try again in {attempt.retry_after} seconds.")
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


def _keep_private(response: HttpResponse, report: Report) -> HttpResponse:
    if report.privacy != Report.Privacy.PUBLIC:
        patch_cache_control(response, private=True, no_store=True)
    return response


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
        response = render(
            request,
            "reports/report.html",
            {"report": report, "categories": presentation.categories(report.results), "is_owner": is_owner},
        )
    return _keep_private(response, report)


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
    return _keep_private(response, report)
