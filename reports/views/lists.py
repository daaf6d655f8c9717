"""The signed-in user's reports and projects, as HTML pages with the API's filters.

The filters are the API's own filter sets (reports/filters.py), so a page and
`GET /api/v1/reports?…` with the same parameters list the same reports; like
the API, unusable values fall back to the defaults. Signing in is the
shortener's session login (the same Django accounts).
"""

from collections import defaultdict
from datetime import datetime

from django.contrib.auth.decorators import login_required
from django.core.paginator import Page, Paginator
from django.db.models import Count, F, QuerySet, Window
from django.db.models.functions import RowNumber
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse_lazy
from django.views.decorators.http import require_safe

from reports import charts
from reports.filters import ProjectFilterSet, ReportFilterSet
from reports.models import Project, Report
from reports.pagination import DEFAULT_PER_PAGE, PER_PAGE_CHOICES

signed_in = login_required(login_url=reverse_lazy("shortener:login"))
# The newest reports of a project drawn in its chart.
CHART_POINTS = 100
# What the API's sort_by values mean, for people.
SORT_LABELS = {
    "id": "Date added",
    "generated_at": "Date analysed",
    "url": "URL",
    "result": "Score",
    "created_at": "Date created",
    "project": "Name",
}


def _page(request: HttpRequest, queryset: QuerySet) -> Page:
    """The requested page; an unusable `per_page` or `page` falls back to the default, as in the API."""
    try:
        per_page = int(request.GET.get("per_page", ""))
    except ValueError:
        per_page = DEFAULT_PER_PAGE
    if per_page not in PER_PAGE_CHOICES:
        per_page = DEFAULT_PER_PAGE
    return Paginator(queryset, per_page).get_page(request.GET.get("page"))


def _choices(filterset: ReportFilterSet | ProjectFilterSet, name: str) -> list[tuple[str, str]]:
    choices = filterset.filters[name].extra["choices"]
    return [(str(value), SORT_LABELS.get(value, str(label))) for value, label in choices]


@require_safe
@signed_in
def report_list(request: HttpRequest) -> HttpResponse:
    reports = Report.objects.owned_by(request.user).select_related("project").defer("results")
    filterset = ReportFilterSet(request.GET, queryset=reports, request=request)
    context = {
        "filter": filterset,
        "page": _page(request, filterset.qs),
        "projects": Project.objects.filter(owner=request.user).order_by("name").values_list("name", flat=True),
        "result_choices": _choices(filterset, "result"),
        "sort_by_choices": _choices(filterset, "sort_by"),
        "per_page_choices": PER_PAGE_CHOICES,
    }
    return render(request, "reports/report_list.html", context)


def _score_histories(projects: list[Project]) -> dict[int, list[tuple[datetime, int]]]:
    """Each project's newest CHART_POINTS analysed (generated_at, score) pairs, oldest first, in one query."""
    recent = (
        Report.objects.filter(project__in=projects, score__isnull=False, generated_at__isnull=False)
        .annotate(recency=Window(RowNumber(), partition_by=F("project_id"), order_by=F("generated_at").desc()))
        .filter(recency__lte=CHART_POINTS)
        .order_by("project_id", "generated_at", "id")
        .values_list("project_id", "generated_at", "score")
    )
    histories: dict[int, list[tuple[datetime, int]]] = defaultdict(list)
    for project_id, generated_at, score in recent:
        histories[project_id].append((generated_at, score))
    return histories


@require_safe
@signed_in
def project_list(request: HttpRequest) -> HttpResponse:
    projects = Project.objects.filter(owner=request.user).annotate(report_count=Count("reports"))
    filterset = ProjectFilterSet(request.GET, queryset=projects, request=request)
    page = _page(request, filterset.qs)
    histories = _score_histories(list(page))
    rows = [(project, charts.score_chart(histories.get(project.pk, []))) for project in page]
    context = {
        "filter": filterset,
        "page": page,
        "rows": rows,
        "sort_by_choices": _choices(filterset, "sort_by"),
        "per_page_choices": PER_PAGE_CHOICES,
    }
    return render(request, "reports/project_list.html", context)
