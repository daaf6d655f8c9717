"""/api/v1/projects: list the key owner's projects and delete one with all its reports."""

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import mixins, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from reports import schema, services
from reports.filters import ProjectFilterSet
from reports.models import Project
from reports.pagination import LaravelPagination
from reports.serializers import ProjectSerializer
from reports.views.base import ReportsApiView


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

    def get_object(self) -> Project:
        return get_object_or_404(self.get_queryset(), name=self.kwargs["project"].strip().lower())

    def destroy(self, request: Request, *args: object, **kwargs: object) -> Response:
        project = self.get_object()
        services.project_delete(project=project)
        return Response({"id": project.name, "object": "project", "deleted": True, "status": 200})
