"""/api/v1/reports: list, show, create, update and delete the key owner's reports."""

from django.db.models import QuerySet
from django.http import HttpResponse
from django.urls import reverse
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from reports import answer_cache, comparison, schema, services, tasks
from reports.filters import ReportFilterSet
from reports.models import Report
from reports.pagination import LaravelPagination
from reports.serializers import ReportCreateSerializer, ReportSerializer, ReportUpdateSerializer
from reports.views.base import ReportsApiView, comparison_baseline, comparison_response, envelope


@schema.REPORTS
class ReportViewSet(ReportsApiView, viewsets.ModelViewSet):
    serializer_class = ReportSerializer
    pagination_class = LaravelPagination
    # For the schema's parameters: filter_queryset() applies the filter set itself.
    filter_backends = [DjangoFilterBackend]
    filterset_class = ReportFilterSet
    lookup_value_regex = r"[0-9]+"

    def get_queryset(self) -> QuerySet[Report]:
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Report.objects.none()
        reports = Report.objects.owned_by(self.request.user).select_related("project")
        # Reads answer with the stored results as they are; writes change them in Python.
        return reports.with_results_text() if self.action in ("list", "retrieve") else reports

    def filter_queryset(self, queryset: QuerySet[Report]) -> QuerySet[Report]:
        # The list's parameters (search, result, sort…) filter the list only: a report is
        # found by its id, and the filter set is a large part of a show's CPU time.
        if self.action != "list":
            return queryset
        filterset = ReportFilterSet(self.request.query_params, queryset=queryset, request=self.request)
        reports = filterset.qs
        # Read by LaravelPagination: the total without counting, when the filters allow it.
        self.kept_total = filterset.kept_total(self.request.user)
        self.keyset = filterset.keyset(reports)
        return reports

    def list(self, request: Request, *args: object, **kwargs: object) -> HttpResponse:
        return answer_cache.cached_answer(request) or super().list(request, *args, **kwargs)

    def retrieve(self, request: Request, *args: object, **kwargs: object) -> HttpResponse:
        return answer_cache.cached_answer(request) or Response(envelope(self.get_serializer(self.get_object()).data))

    def finalize_response(
        self, request: Request, response: HttpResponse, *args: object, **kwargs: object
    ) -> HttpResponse:
        response = super().finalize_response(request, response, *args, **kwargs)
        answer_cache.keep(request, response)
        return response

    def create(self, request: Request, *args: object, **kwargs: object) -> Response:
        params = ReportCreateSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        report = services.report_create_and_wait(owner=request.user, **params.validated_data)
        return self._analysis_response(report, finished_status=201)

    def update(self, request: Request, *args: object, **kwargs: object) -> Response:
        report = self.get_object()
        params = ReportUpdateSerializer(data=request.data, context={"report": report})
        params.is_valid(raise_exception=True)
        report = services.report_update(
            report=report,
            privacy=params.validated_data.get("privacy"),
            password=params.validated_data.get("password"),
            rerun=params.validated_data["results"],
        )
        if params.validated_data["results"]:
            return self._analysis_response(tasks.wait_for_analysis(report), finished_status=200)
        return Response(envelope(self.get_serializer(report).data))

    def _analysis_response(self, report: Report, *, finished_status: int) -> Response:
        """The finished report, the cause of a failed analysis (422), or 202 with where to poll."""
        if report.status == Report.Status.FAILED:
            raise ValidationError({"url": [report.error]})
        data = envelope(self.get_serializer(report).data)
        if report.status == Report.Status.DONE:
            return Response(data, status=finished_status)
        location = self.request.build_absolute_uri(reverse("reports-api:report-detail", args=[report.pk]))
        return Response({**data, "status": 202}, status=202, headers={"Location": location})

    def partial_update(self, request: Request, *args: object, **kwargs: object) -> Response:
        return self.update(request, *args, **kwargs)

    def destroy(self, request: Request, *args: object, **kwargs: object) -> Response:
        report = self.get_object()
        report_id = report.pk
        services.report_delete(report=report)
        return Response({"id": report_id, "object": "report", "deleted": True, "status": 200})

    @action(detail=True, methods=["get"], url_path="compare")
    def compare(self, request: Request, *args: object, **kwargs: object) -> Response | HttpResponse:
        """What changed in this report since the report `with` (both the key owner's, both analysed)."""
        report = self.get_object()
        baseline = comparison_baseline(request, self.get_queryset(), "a report")
        unanalysed = [r.pk for r in (report, baseline) if r.generated_at is None]
        if unanalysed:
            raise ValidationError({"with": [f"Report {unanalysed[0]} has no results yet."]})
        return comparison_response(request, comparison.compare(report, baseline), report, baseline)
