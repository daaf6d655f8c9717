"""List filters for interface A.

The reference product never rejects a list request for its parameters: an
unknown `sort_by`, `sort`, `search_by` or `result` is replaced by the default
(no filter, `id`, `desc`). `DefaultingFilterSet` does the same by dropping
invalid values instead of raising.
"""

import copy

from django import forms
from django.db import connections
from django.db.models import Expression, F, QuerySet
from django.db.models.functions import Left
from django_filters import rest_framework as filters
from drf_spectacular.utils import OpenApiParameter

from common.paging import Keyset
from reports import url_search
from reports.models import (
    SCORE_CATEGORIES,
    URL_SORT_PREFIX,
    Audit,
    OwnerProjectCount,
    OwnerReportCount,
    Project,
    Report,
)

SORT_CHOICES = [("desc", "desc"), ("asc", "asc")]


class _SharedFields(dict):
    """A form class's fields, which its forms share instead of each deep-copying them (a tenth of a
    25-report list's CPU time with the filters' copies below): nothing changes a filter form's
    field after the class is built, and cleaning a value only reads it."""

    def __deepcopy__(self, memo: dict) -> dict:
        return dict(self)


class _FilterCopies(dict):
    """A filter set class's filters, copied shallowly for each filter set: what a filter set sets
    on its filters (parent, model) is on the copy; what they share (their form field, choices) is
    read only. A filter with a method gets a method binding of its own, as a deep copy would."""

    def __deepcopy__(self, memo: dict) -> dict:
        copies = {}
        for name, filter_ in self.items():
            copies[name] = copied = copy.copy(filter_)
            if copied.method is not None:
                copied.method = copied.method  # binds a FilterMethod to the copy, not to the class's filter
        return copies


class DefaultingFilterSet(filters.FilterSet):
    """A filter set whose invalid values fall back to their defaults, then ordered by `sort_by` and `sort`."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        cls = type(self)
        if not isinstance(cls.__dict__.get("base_filters"), _FilterCopies):
            cls.base_filters = _FilterCopies(cls.base_filters)
        super().__init__(*args, **kwargs)

    sort = filters.ChoiceFilter(choices=SORT_CHOICES, method="keep", help_text="desc (default) or asc.")

    # sort_by value → model fields (or expressions) to order by; the last one breaks ties.
    sort_fields: dict[str, tuple[str | Expression, ...]] = {}
    default_sort_by = ""
    # sort_by values whose first column may be NULL: no keyset cursor (see Keyset).
    nullable_sorts: frozenset[str] = frozenset()

    def get_form_class(self) -> type[forms.Form]:
        # django-filter builds this class, and a form field for each filter, on every request;
        # they depend only on the filter set's class, so build them once per class.
        form_class = type(self).__dict__.get("_form_class")
        if form_class is None:
            form_class = super().get_form_class()
            form_class.base_fields = _SharedFields(form_class.base_fields)
            type(self)._form_class = form_class
        return form_class

    def is_valid(self) -> bool:
        # Invalid fields are left out of form.cleaned_data, so they filter nothing.
        return self.is_bound

    def keep(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        """Parameters that only steer other filters or the ordering."""
        return queryset

    def sort_terms(self, queryset: QuerySet, sort_by: str) -> tuple[str | Expression, ...]:
        return self.sort_fields[sort_by]

    def keyset(self, queryset: QuerySet) -> Keyset | None:
        """The list's sort as a key for the pager's cursors (common.paging.Keyset); None for
        sorts on a column that may be NULL (their pages are read by number)."""
        cleaned = self.form.cleaned_data
        sort_by = cleaned.get("sort_by") or self.default_sort_by
        if sort_by in self.nullable_sorts:
            return None
        terms = self.sort_terms(queryset, sort_by)
        return Keyset(
            terms, lambda row: tuple(_key_value(row, term) for term in terms), descending=cleaned.get("sort") != "asc"
        )

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        queryset = super().filter_queryset(queryset)
        cleaned = self.form.cleaned_data
        fields = self.sort_terms(queryset, cleaned.get("sort_by") or self.default_sort_by)
        ascending = cleaned.get("sort") == "asc"
        terms = (F(field) if isinstance(field, str) else field for field in fields)
        return queryset.order_by(*(term.asc() if ascending else term.desc() for term in terms))


def _key_value(row: object, term: str | Expression) -> object:
    """A row's value for one sort term: a field, or the indexed URL prefix (Left)."""
    if isinstance(term, str):
        return getattr(row, term)
    if isinstance(term, Left):
        field, length = term.get_source_expressions()
        return getattr(row, field.name)[: length.value]
    raise TypeError(f"no key value for {term!r}")


def fallback_parameters(filterset_class: type[DefaultingFilterSet]) -> list[OpenApiParameter]:
    """The filter set's choice parameters as plain strings in the schema: other values fall back, not fail."""
    return [
        OpenApiParameter(
            name,
            str,
            description=f"{field.extra.get('help_text', '')} Any other value falls back to the default.",
        )
        for name, field in filterset_class.base_filters.items()
        if isinstance(field, filters.ChoiceFilter)
    ]


class ReportFilterSet(DefaultingFilterSet):
    search = filters.CharFilter(method="filter_search", help_text="Reports whose URL contains this (any case).")
    search_by = filters.ChoiceFilter(
        choices=[("url", "url")], method="keep", help_text="The field searched: only url (the default)."
    )
    project = filters.CharFilter(method="filter_project", help_text="Only the reports of this project (a host).")
    result = filters.ChoiceFilter(choices=Report.Result.choices, help_text="good, decent or bad.")
    # A score filter's value that is not a number filters nothing, as other unusable values do.
    min_score = filters.NumberFilter(
        field_name="score", lookup_expr="gte", help_text="Only reports whose overall score is at least this (0-100)."
    )
    min_score_seo = filters.NumberFilter(
        field_name="score_seo", lookup_expr="gte", help_text="Only reports whose SEO score is at least this."
    )
    min_score_performance = filters.NumberFilter(
        field_name="score_performance",
        lookup_expr="gte",
        help_text="Only reports whose performance score is at least this.",
    )
    min_score_security = filters.NumberFilter(
        field_name="score_security", lookup_expr="gte", help_text="Only reports whose security score is at least this."
    )
    min_score_accessibility = filters.NumberFilter(
        field_name="score_accessibility",
        lookup_expr="gte",
        help_text="Only reports whose accessibility score is at least this.",
    )
    min_score_miscellaneous = filters.NumberFilter(
        field_name="score_miscellaneous",
        lookup_expr="gte",
        help_text="Only reports whose miscellaneous score is at least this.",
    )
    sort_by = filters.ChoiceFilter(
        choices=[("id", "id"), ("generated_at", "generated_at"), ("url", "url"), ("result", "result")],
        method="keep",
        help_text="id (default), generated_at, url or result (result sorts by the score behind it).",
    )

    sort_fields = {
        "id": ("id",),
        "generated_at": ("generated_at", "id"),
        # The indexed prefix first (reports_report_owner_url), then the whole URL: the same order.
        "url": (Left("url", URL_SORT_PREFIX), "url", "id"),
        # The score orders the ratings (bad < decent < good) and the reports within each.
        "result": ("score", "id"),
    }
    default_sort_by = "id"
    nullable_sorts = frozenset({"generated_at", "result"})

    class Meta:
        model = Report
        fields = [
            "search",
            "search_by",
            "project",
            "result",
            "min_score",
            *(f"min_score_{category}" for category in SCORE_CATEGORIES),
            "sort_by",
            "sort",
        ]

    def filter_search(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return url_search.url_contains(queryset, value)

    def sort_terms(self, queryset: QuerySet, sort_by: str) -> tuple[str | Expression, ...]:
        # SQLite indexes whole URLs (reports_report_owner_url_full, 0011_sqlite_url_search) and
        # its planner cannot see that the prefix orders them: the same order, without the prefix.
        if sort_by == "url" and connections[queryset.db].vendor == "sqlite":
            return ("url", "id")
        return super().sort_terms(queryset, sort_by)

    def filter_project(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(project__name=value.strip().lower())

    def kept_total(self, owner: object) -> int | None:
        """The list's length from a kept count, when nothing but `project` narrows it.

        The owner's count (OwnerReportCount), or the project's (Project.report_count): exact
        and one row, where COUNT(*) would read every entry of an index, 10⁶ of them for a
        long-lived account.
        """
        cleaned = self.form.cleaned_data
        narrowing = ("search", "result", "min_score", *(f"min_score_{category}" for category in SCORE_CATEGORIES))
        if any(cleaned.get(name) not in (None, "") for name in narrowing):
            return None
        if cleaned.get("project"):
            project = Project.objects.filter(owner=owner, name=cleaned["project"].strip().lower())
            return project.values_list("report_count", flat=True).first() or 0
        # One row, where summing the projects' counts reads a row per project (10⁴ to 10⁵).
        return OwnerReportCount.objects.filter(owner=owner).values_list("report_count", flat=True).first() or 0


class ProjectFilterSet(DefaultingFilterSet):
    search = filters.CharFilter(
        field_name="name", lookup_expr="icontains", help_text="Projects whose name contains this (any case)."
    )
    search_by = filters.ChoiceFilter(
        choices=[("project", "project")], method="keep", help_text="The field searched: only project (the default)."
    )
    sort_by = filters.ChoiceFilter(
        choices=[("created_at", "created_at"), ("project", "project")],
        method="keep",
        help_text="created_at (default) or project.",
    )

    sort_fields = {"created_at": ("created_at", "id"), "project": ("name",)}
    default_sort_by = "created_at"

    def kept_total(self, owner: object) -> int | None:
        """The owner's kept project count (OwnerProjectCount) when no search narrows the list."""
        if self.form.cleaned_data.get("search") not in (None, ""):
            return None
        return OwnerProjectCount.objects.filter(owner=owner).values_list("project_count", flat=True).first() or 0

    class Meta:
        model = Project
        fields = ["search", "search_by", "sort_by", "sort"]


class AuditFilterSet(DefaultingFilterSet):
    search = filters.CharFilter(
        field_name="url", lookup_expr="icontains", help_text="Audits whose start page contains this (any case)."
    )
    project = filters.CharFilter(method="filter_project", help_text="Only the audits of this project (a host).")
    status = filters.ChoiceFilter(choices=Audit.Status.choices, help_text="queued, running, done or failed.")
    sort_by = filters.ChoiceFilter(choices=[("id", "id")], method="keep", help_text="id (the default and only sort).")

    # Every sort ends in the id, served by (owner, id) / (project, id): a page reads its ids from the index.
    sort_fields = {"id": ("id",)}
    default_sort_by = "id"

    class Meta:
        model = Audit
        fields = ["search", "project", "status", "sort_by", "sort"]

    def filter_project(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(project__name=value.strip().lower())
