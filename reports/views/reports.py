"""/api/v1/reports: list, show, create, update and delete the key owner's reports."""

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.urls import reverse
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from reports import services, tasks
from reports.filters import ReportFilterSet
from reports.models import Report
from reports.pagination import LaravelPagination
from reports.serializers import ReportCreateSerializer, ReportSerializer, ReportUpdateSerializer

from .base import ReportsApiView, envelope


def _record_schema(name: str) -> serializers.Serializer:
    return inline_serializer(name, {"data": ReportSerializer(), "status": serializers.IntegerField(default=200)})


ERRORS = {
    400: OpenApiResponse(description='A body that cannot be parsed: `{"message": "…", "status": 400}`.'),
    401: OpenApiResponse(description='Missing or unknown key: `{"message": "Unauthenticated."}`.'),
    429: OpenApiResponse(description='Over REPORTS_RATE_LIMIT a minute per key: `{"message": "Too Many Attempts."}`.'),
}
NOT_FOUND = OpenApiResponse(
    description='Unknown id, or another user\'s report: `{"message": "Resource not found.", "status": 404}`.'
)
INVALID = OpenApiResponse(
    description='`{"message": {"<field>": ["<message>", …]}, "status": 422}`; a page whose analysis failed within '
    "the wait is reported on `url` (a new report is then not kept; a re-run leaves the report with status "
    "`failed`, its cause in `error` and its last results)."
)
ACCEPTED_DOC = (
    "The analysis runs on a task worker. If it finishes within REPORTS_ANALYSIS_WAIT seconds (5 by default) and "
    "a waiting slot of the server process is free (REPORTS_ANALYSIS_WAIT_SLOTS), the answer has the finished "
    "report; otherwise it is **202** with the report as it is now (`data.status` `queued` or `running`) and a "
    "`Location` header with its URL: GET it until `data.status` is `done` or `failed` (then `data.error` says why)."
)
LOCATION = OpenApiParameter(
    "Location",
    type=str,
    location=OpenApiParameter.HEADER,
    response=[202],
    description="The report's URL, to GET until `data.status` is `done` or `failed`.",
)
ACCEPTED = OpenApiResponse(
    description="The analysis is still queued or running: the report as it is now, and `Location` to poll.",
    response=inline_serializer(
        "ReportAccepted", {"data": ReportSerializer(), "status": serializers.IntegerField(default=202)}
    ),
)
DELETED = inline_serializer(
    "ReportDeleted",
    {
        "id": serializers.IntegerField(),
        "object": serializers.CharField(default="report"),
        "deleted": serializers.BooleanField(default=True),
        "status": serializers.IntegerField(default=200),
    },
)
UPDATE_DOC = (
    "PUT and PATCH behave alike: every parameter is optional and only those given change. "
    "`privacy` other than 2 removes the page password; `privacy=2` needs a password unless the report has one. "
    "`results=1` analyses the URL again (results, score, result and generated_at change once it is done); "
    "it answers like a create: 200 with the finished report, 202 while it is queued or running, "
    "422 if it failed within the wait (the report keeps its last results, with status `failed`)."
)


@extend_schema_view(
    list=extend_schema(
        summary="List reports",
        description="The key owner's reports, 10 a page by default (Laravel's paginated envelope). "
        "Unusable values of search_by, result, sort_by, sort, per_page and page fall back to their defaults.",
        responses={200: ReportSerializer(many=True), **ERRORS},
    ),
    retrieve=extend_schema(
        summary="Show a report", responses={200: _record_schema("ReportShow"), 404: NOT_FOUND, **ERRORS}
    ),
    create=extend_schema(
        summary="Create a report",
        description="Stores the report in the project of the URL's host, which is made if the owner has none, "
        "and analyses the page. Answers 201 with the finished report and `status: 200` in the body, as the "
        "reference does. " + ACCEPTED_DOC,
        request=ReportCreateSerializer,
        parameters=[LOCATION],
        responses={201: _record_schema("ReportCreated"), 202: ACCEPTED, 422: INVALID, **ERRORS},
    ),
    update=extend_schema(
        summary="Update a report",
        description=UPDATE_DOC,
        request=ReportUpdateSerializer,
        parameters=[LOCATION],
        responses={200: _record_schema("ReportUpdated"), 202: ACCEPTED, 404: NOT_FOUND, 422: INVALID, **ERRORS},
    ),
    partial_update=extend_schema(
        summary="Update a report",
        description=UPDATE_DOC,
        request=ReportUpdateSerializer,
        parameters=[LOCATION],
        responses={200: _record_schema("ReportPatched"), 202: ACCEPTED, 404: NOT_FOUND, 422: INVALID, **ERRORS},
    ),
    destroy=extend_schema(summary="Delete a report", responses={200: DELETED, 404: NOT_FOUND, **ERRORS}),
)
class ReportViewSet(ReportsApiView, viewsets.ModelViewSet):
    serializer_class = ReportSerializer
    pagination_class = LaravelPagination
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
        return super().filter_queryset(queryset) if self.action == "list" else queryset

    def retrieve(self, request: Request, *args: object, **kwargs: object) -> Response:
        return Response(envelope(self.get_serializer(self.get_object()).data))

    def create(self, request: Request, *args: object, **kwargs: object) -> Response:
        params = ReportCreateSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        report = services.report_create(owner=request.user, **params.validated_data)
        report = tasks.wait_for_analysis(report)
        if report.status == Report.Status.FAILED:
            services.report_discard(report=report)
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
            raise ValidationError({"url": [report.error]}, code="analysis_failed")
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
        report.delete()
        return Response({"id": report_id, "object": "report", "deleted": True, "status": 200})
