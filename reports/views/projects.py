"""/api/v1/projects: list the key owner's projects and delete one with all its reports."""

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view, inline_serializer
from rest_framework import mixins, serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from reports import services
from reports.filters import ProjectFilterSet, fallback_parameters
from reports.models import Project
from reports.pagination import LaravelPagination
from reports.serializers import ProjectSerializer

from .base import ReportsApiView
from .reports import ERRORS


@extend_schema_view(
    list=extend_schema(
        summary="List projects",
        description="The key owner's projects (one per host it has reports of), in Laravel's paginated envelope. "
        "Unusable values of search_by, sort_by, sort, per_page and page fall back to their defaults.",
        parameters=fallback_parameters(ProjectFilterSet),
        responses={200: ProjectSerializer(many=True), **ERRORS},
    ),
    destroy=extend_schema(
        summary="Delete a project",
        description="Deletes the project **and every report in it**. The project is named by its host in the path "
        "(any case); `id` in the answer is that name, since a project has no other public identifier.",
        responses={
            200: inline_serializer(
                "ProjectDeleted",
                {
                    "id": serializers.CharField(),
                    "object": serializers.CharField(default="project"),
                    "deleted": serializers.BooleanField(default=True),
                    "status": serializers.IntegerField(default=200),
                },
            ),
            404: OpenApiResponse(description="The owner has no project of that name."),
            **ERRORS,
        },
    ),
)
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
