"""/api/v1/projects: list the key owner's projects, set a budget, manage webhooks, delete one with all its reports."""

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import mixins, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from reports import schema, services
from reports.filters import ProjectFilterSet
from reports.models import Project, Webhook
from reports.pagination import LaravelPagination
from reports.serializers import ProjectSerializer, ProjectUpdateSerializer, WebhookCreateSerializer, WebhookSerializer
from reports.views.base import ReportsApiView, envelope


@schema.PROJECTS
class ProjectViewSet(ReportsApiView, mixins.ListModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    serializer_class = ProjectSerializer
    pagination_class = LaravelPagination
    filter_backends = [DjangoFilterBackend]
    filterset_class = ProjectFilterSet
    lookup_url_kwarg = "project"
    # Hosts have dots, which DRF's default lookup pattern excludes; NUL can never be in a name.
    lookup_value_regex = r"[^/\x00]+"

    def get_queryset(self) -> QuerySet[Project]:
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Project.objects.none()
        return Project.objects.filter(owner=self.request.user)

    def filter_queryset(self, queryset: QuerySet[Project]) -> QuerySet[Project]:
        if self.action != "list":
            return queryset
        filterset = ProjectFilterSet(self.request.query_params, queryset=queryset, request=self.request)
        # Read by LaravelPagination: the sort as a key for the pager links' cursors, and the
        # total without counting when no search narrows the list.
        self.keyset = filterset.keyset(filterset.qs)
        self.kept_total = filterset.kept_total(self.request.user)
        return filterset.qs

    def get_object(self) -> Project:
        return get_object_or_404(self.get_queryset(), name=self.kwargs["project"].strip().lower())

    def destroy(self, request: Request, *args: object, **kwargs: object) -> Response:
        project = self.get_object()
        services.project_delete(project=project)
        return Response({"id": project.name, "object": "project", "deleted": True, "status": 200})

    def partial_update(self, request: Request, *args: object, **kwargs: object) -> Response:
        project = self.get_object()
        params = ProjectUpdateSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        project = services.project_update(project=project, **params.validated_data)
        return Response(envelope(ProjectSerializer(project).data))

    @action(detail=True, methods=["get", "post"], url_path="webhooks")
    def webhooks(self, request: Request, *args: object, **kwargs: object) -> Response:
        project = self.get_object()
        if request.method == "GET":
            hooks = project.webhooks.select_related("project").order_by("pk")
            return Response({"data": WebhookSerializer(hooks, many=True).data, "status": 200})
        params = WebhookCreateSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        webhook = services.webhook_create(project=project, **params.validated_data)
        # The secret is shown this once; answers after this one never carry it.
        data = {**WebhookSerializer(webhook).data, "secret": webhook.secret}
        return Response({"data": data, "status": 201}, status=201)

    @action(detail=True, methods=["delete"], url_path=r"webhooks/(?P<webhook_id>[0-9]+)")
    def webhook_delete(self, request: Request, *args: object, webhook_id: str, **kwargs: object) -> Response:
        project = self.get_object()
        webhook = get_object_or_404(Webhook, project=project, pk=int(webhook_id))
        webhook.delete()
        return Response({"id": int(webhook_id), "object": "webhook", "deleted": True, "status": 200})
