"""The signed-in user's reports and projects, as HTML pages with the API's filters.

The filters are the API's own filter sets (reports/filters.py), so a page and
`GET /api/v1/reports?…` with the same parameters list the same reports; like
the API, unusable values fall back to the defaults. Signing in is the
shortener's session login (the same Django accounts).
"""

from collections import defaultdict
from datetime import datetime

from django.contrib.auth.decorators import login_required
from django.core.paginator import Page
from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse_lazy
from django.views.decorators.http import require_safe

from common.paging import KeptCountPaginator
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


def _page(request: HttpRequest, queryset: QuerySet, kept_total: int | None = None) -> Page:
    """The requested page; an unusable `per_page` or `page` falls back to the default, as in the API."""
    try:
        per_page = int(request.GET.get("per_page", ""))
    except ValueError:
        per_page = DEFAULT_PER_PAGE
    if per_page not in PER_PAGE_CHOICES:
        per_page = DEFAULT_PER_PAGE
    return KeptCountPaginator(queryset, per_page, kept_total=kept_total).get_page(request.GET.get("page"))


def _choices(filterset: ReportFilterSet | ProjectFilterSet, name: str) -> list[tuple[str, str]]:
    choices = filterset.filters[name].extra["choices"]
    return [(str(value), SORT_LABELS.get(value, str(label))) for value, label in choices]


@require_safe
@signed_in
def report_list(request: HttpRequest) -> HttpResponse:
    reports = Report.objects.owned_by(request.user).select_related("project").defer("results")
    filterset = ReportFilterSet(request.GET, queryset=reports, request=request)
    page = _page(request, filterset.qs, filterset.kept_total(request.user))
    context = {
        "filter": filterset,
        "page": page,
        "projects": Project.objects.filter(owner=request.user).order_by("name").values_list("name", flat=True),
        "result_choices": _choices(filterset, "result"),
        "sort_by_choices": _choices(filterset, "sort_by"),
        "per_page_choices": PER_PAGE_CHOICES,
    }
    return render(request, "reports/report_list.html", context)


def _score_histories(projects: list[Project]) -> dict[int, list[tuple[datetime, int]]]:
    """Each project's newest CHART_POINTS analysed (generated_at, score) pairs, oldest first, in two queries.

    Each reads CHART_POINTS entries per project from reports_report_project_gen, however many
    reports a project has: first the oldest generated_at to draw, then the reports from it on.
    """
    analysed = Report.objects.filter(score__isnull=False, generated_at__isnull=False)
    cutoffs = (
        Project.objects.filter(pk__in=[project.pk for project in projects])
        .annotate(
            cutoff=Subquery(
                analysed.filter(project=OuterRef("pk"))
                .order_by("-generated_at", "-id")
                .values("generated_at")[CHART_POINTS - 1 : CHART_POINTS]
            )
        )
        .values_list("pk", "cutoff")
    )
    # A project with fewer reports has no cutoff: all of them are drawn.
    wanted = Q()
    for project_id, cutoff in cutoffs:
        wanted |= Q(project_id=project_id) & (Q(generated_at__gte=cutoff) if cutoff is not None else Q())
    if not wanted:
        return {}
    recent = analysed.filter(wanted).order_by("project_id", "generated_at", "id")
    histories: dict[int, list[tuple[datetime, int]]] = defaultdict(list)
    for project_id, generated_at, score in recent.values_list("project_id", "generated_at", "score"):
        histories[project_id].append((generated_at, score))
    # Reports sharing the cutoff's instant may add a few: keep the newest CHART_POINTS.
    return {project_id: history[-CHART_POINTS:] for project_id, history in histories.items()}


@require_safe
@signed_in
def project_list(request: HttpRequest) -> HttpResponse:
    projects = Project.objects.filter(owner=request.user)
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
