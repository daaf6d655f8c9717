"""/api/v1/audits: queue, list, show, compare, export and delete the key owner's site audits."""

from django.conf import settings
from django.db.models import QuerySet
from django.http import HttpResponse, StreamingHttpResponse
from django.urls import reverse
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import mixins, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from reports import schema
from reports.audits import exports, services, summary
from reports.filters import AuditFilterSet
from reports.models import Audit
from reports.pagination import LaravelPagination
from reports.serializers import AuditCreateSerializer, AuditListSerializer, AuditSerializer
from reports.views.base import ReportsApiView, comparison_baseline, comparison_response, envelope


class TooManyQueuedAudits(APIException):
    """429 in A's error shape, `{"message", "status"}`: unlike the rate limit's, waiting a while is not enough."""

    status_code = 429


@schema.AUDITS
class AuditViewSet(
    ReportsApiView,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = AuditSerializer
    pagination_class = LaravelPagination
    filter_backends = [DjangoFilterBackend]
    filterset_class = AuditFilterSet
    lookup_value_regex = r"[0-9]+"

    def get_queryset(self) -> QuerySet[Audit]:
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Audit.objects.none()
        audits = Audit.objects.filter(owner=self.request.user).select_related("project")
        if self.action == "list":
            # The list shows no summaries: leave them (and the robots.txt kept for the crawl) unread.
            audits = audits.defer("summary", "robots_txt")
        return audits

    def get_serializer_class(self) -> type[AuditSerializer]:
        return AuditListSerializer if self.action == "list" else AuditSerializer

    def filter_queryset(self, queryset: QuerySet[Audit]) -> QuerySet[Audit]:
        if self.action != "list":
            return queryset
        return AuditFilterSet(self.request.query_params, queryset=queryset, request=self.request).qs

    def list(self, request: Request, *args: object, **kwargs: object) -> Response:
        audits = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(audits)
        # The budget of a listed audit needs its summary: read only those of listed, finished audits.
        summaries = dict(
            Audit.objects.filter(pk__in=[audit.pk for audit in page], status=Audit.Status.DONE).values_list(
                "pk", "summary"
            )
        )
        for audit in page:
            audit.summary = summaries.get(audit.pk, {})
        return self.get_paginated_response(AuditListSerializer(page, many=True).data)

    def retrieve(self, request: Request, *args: object, **kwargs: object) -> Response:
        return Response(envelope(AuditSerializer(self.get_object()).data))

    def create(self, request: Request, *args: object, **kwargs: object) -> Response:
        params = AuditCreateSerializer(data=request.data, context={"owner": request.user})
        params.is_valid(raise_exception=True)
        try:
            audit = services.audit_create(
                owner=request.user, max_queued=settings.REPORTS_AUDIT_MAX_QUEUED, **params.validated_data
            )
        except services.TooManyQueuedAudits as exc:
            raise TooManyQueuedAudits(str(exc)) from None
        audit.refresh_from_db()
        location = request.build_absolute_uri(reverse("reports-api:audit-detail", args=[audit.pk]))
        return Response(
            {"data": AuditSerializer(audit).data, "status": 202}, status=202, headers={"Location": location}
        )

    def destroy(self, request: Request, *args: object, **kwargs: object) -> Response:
        audit = self.get_object()
        services.audit_delete(audit=audit)
        return Response({"id": audit.pk, "object": "audit", "deleted": True, "status": 200})

    @action(detail=True, methods=["get"], url_path="compare")
    def compare(self, request: Request, *args: object, **kwargs: object) -> Response | HttpResponse:
        """What changed in this audit since the audit `with` (both the key owner's, both done)."""
        audit = self.get_object()
        baseline = comparison_baseline(request, self.get_queryset(), "an audit")
        unfinished = [a.pk for a in (audit, baseline) if a.status != Audit.Status.DONE]
        if unfinished:
            raise ValidationError({"with": [f"Audit {unfinished[0]} is not done yet."]})
        return comparison_response(request, summary.compare(audit, baseline), audit, baseline, noun="Audit")

    @action(detail=True, methods=["get"], url_path=r"(?P<what>pages|issues)\.(?P<fmt>csv|json)")
    def export(self, request: Request, *args: object, what: str, fmt: str, **kwargs: object) -> StreamingHttpResponse:
        """The audit's pages, or its grouped issues (one row per failing check and page), as CSV or JSON."""
        return exports.response(self.get_object(), what, fmt)
