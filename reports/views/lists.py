"""The signed-in user's reports and projects, as HTML pages with the API's filters.

The filters are the API's own filter sets (reports/filters.py), so a page and
`GET /api/v1/reports?…` with the same parameters list the same reports; like
the API, unusable values fall back to the defaults. Signing in is the
site's (settings.LOGIN_URL, the account area's form).
"""

from collections import defaultdict
from datetime import datetime

from django.core.paginator import InvalidPage, Page
from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_safe

from common.paging import KeptCountPaginator, Keyset, cursor_links, resumed_rows
from common.sign_in import signed_in
from reports import charts, presentation
from reports.filters import ProjectFilterSet, ReportFilterSet
from reports.models import SCORE_CATEGORIES, Project, Report
from reports.pagination import DEFAULT_PER_PAGE, PER_PAGE_CHOICES

# The newest reports of a project drawn in its chart.
CHART_POINTS = 100
# How many projects the report list's project field suggests (the newest ones).
PROJECT_MENU_SIZE = 50
# What the API's sort_by values mean, for people.
SORT_LABELS = {
    "id": _("Date added"),
    "generated_at": _("Date analysed"),
    "url": _("URL"),
    "result": _("Score"),
    "created_at": _("Date created"),
    "project": _("Name"),
}


def _page(request: HttpRequest, queryset: QuerySet, keyset: Keyset | None, kept_total: int | None = None) -> Page:
    """The requested page; an unusable `per_page` or `page` falls back to the default, as in the API.

    Reached through the pager's links, the page is sought from their cursor (`after`/`before`,
    common.paging.Keyset) instead of walked to; `page.cursors` holds the next links' cursors.
    """
    try:
        per_page = int(request.GET.get("per_page", ""))
    except ValueError:
        per_page = DEFAULT_PER_PAGE
    if per_page not in PER_PAGE_CHOICES:
        per_page = DEFAULT_PER_PAGE
    paginator = KeptCountPaginator(queryset, per_page, kept_total=kept_total)
    page = None
    try:
        number = paginator.validate_number(request.GET.get("page") or 1)
    except InvalidPage:
        number = None
    if number is not None:
        rows = resumed_rows(queryset, keyset, request.GET, number, per_page)
        if rows:
            page = paginator._get_page(rows, number, paginator)
    if page is None:
        page = paginator.get_page(request.GET.get("page"))
    page.cursors = cursor_links(keyset, request.GET, page.number, list(page))
    return page


def _choices(filterset: ReportFilterSet | ProjectFilterSet, name: str) -> list[tuple[str, str]]:
    choices = filterset.filters[name].extra["choices"]
    return [(str(value), SORT_LABELS.get(value, str(label))) for value, label in choices]


def _menu_projects(owner: object) -> list[str]:
    """The project filter's suggestions: the newest PROJECT_MENU_SIZE projects' names, by name.

    Bounded: the menu once listed every project (45,000 names, 260 KB a page, for an account
    with 10⁶ reports); any other project is typed (the field takes any host).
    """
    newest = Project.objects.filter(owner=owner).order_by("-created_at", "-id").values_list("name", flat=True)
    return sorted(newest[:PROJECT_MENU_SIZE])


@require_safe
@signed_in
def report_list(request: HttpRequest) -> HttpResponse:
    reports = Report.objects.owned_by(request.user).select_related("project").defer("results")
    filterset = ReportFilterSet(request.GET, queryset=reports, request=request)
    page = _page(request, filterset.qs, filterset.keyset(filterset.qs), filterset.kept_total(request.user))
    context = {
        "filter": filterset,
        "page": page,
        "projects": _menu_projects(request.user),
        "result_choices": _choices(filterset, "result"),
        "sort_by_choices": _choices(filterset, "sort_by"),
        "per_page_choices": PER_PAGE_CHOICES,
    }
    return render(request, "reports/report_list.html", context)


# What the project chart can draw (`?chart=`): the overall score (the default) or a category's.
CHART_CHOICES = [("score", _("Overall score"))] + [
    (category, format_lazy(_("{category} score"), category=presentation.CATEGORY_LABELS[category]))
    for category in SCORE_CATEGORIES
]


def _score_histories(projects: list[Project], field: str) -> dict[int, list[tuple[str, datetime, int]]]:
    """Each project's newest CHART_POINTS analysed (url, generated_at, score) triples, oldest first, in two queries.

    Each reads CHART_POINTS entries per project from reports_report_project_gen, however many
    reports a project has: first the oldest generated_at to draw, then the reports from it on.
    """
    analysed = Report.objects.filter(generated_at__isnull=False, **{f"{field}__isnull": False})
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
    histories: dict[int, list[tuple[str, datetime, int]]] = defaultdict(list)
    for project_id, url, generated_at, score in recent.values_list("project_id", "url", "generated_at", field):
        histories[project_id].append((url, generated_at, score))
    # Reports sharing the cutoff's instant may add a few: keep the newest CHART_POINTS.
    return {project_id: history[-CHART_POINTS:] for project_id, history in histories.items()}


@require_safe
@signed_in
def project_list(request: HttpRequest) -> HttpResponse:
    projects = Project.objects.filter(owner=request.user)
    filterset = ProjectFilterSet(request.GET, queryset=projects, request=request)
    page = _page(request, filterset.qs, filterset.keyset(filterset.qs), filterset.kept_total(request.user))
    chart = request.GET.get("chart", "score")
    chart = chart if chart in dict(CHART_CHOICES) else "score"
    histories = _score_histories(list(page), "score" if chart == "score" else f"score_{chart}")
    label = dict(CHART_CHOICES)[chart]
    rows = [(project, charts.score_chart(histories.get(project.pk, []), label)) for project in page]
    context = {
        "filter": filterset,
        "page": page,
        "rows": rows,
        "chart_choice": chart,
        "chart_choices": CHART_CHOICES,
        "sort_by_choices": _choices(filterset, "sort_by"),
        "per_page_choices": PER_PAGE_CHOICES,
    }
    return render(request, "reports/project_list.html", context)
