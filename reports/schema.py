"""OpenAPI descriptions of interface A (/api/v1/reports and /api/v1/projects)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view, inline_serializer
from rest_framework import serializers

from reports.filters import ProjectFilterSet, ReportFilterSet, fallback_parameters
from reports.models import Report
from reports.serializers import (
    PasswordField,
    PrivacyField,
    ProjectSerializer,
    ReportCreateSerializer,
    ReportSerializer,
    ReportUpdateSerializer,
)


class ReportsApiKeyScheme(OpenApiAuthenticationExtension):
    """Describes the key in the OpenAPI schema."""

    target_class = "reports.authentication.ReportsApiKeyAuthentication"
    name = "reportsApiKey"

    def get_security_definition(self, auto_schema: AutoSchema) -> dict:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A reports API key (rpt_…), issued in the admin or by "
            "`manage.py create_api_key --interface reports`.",
        }


# The same bodies as form fields: a form field cannot be null (leave it out instead).
class ReportCreateFormSerializer(ReportCreateSerializer):
    privacy = PrivacyField(required=False, default=Report.Privacy.PUBLIC, allow_null=False)
    password = PasswordField(required=False, default="", allow_null=False)


class ReportUpdateFormSerializer(ReportUpdateSerializer):
    privacy = PrivacyField(required=False, allow_null=False)
    password = PasswordField(required=False, allow_null=False)


def _by_media_type(json_serializer: type, form_serializer: type) -> dict[str, type]:
    return {
        "application/json": json_serializer,
        "application/x-www-form-urlencoded": form_serializer,
        "multipart/form-data": form_serializer,
    }


def _record_schema(name: str) -> serializers.Serializer:
    return inline_serializer(name, {"data": ReportSerializer(), "status": serializers.IntegerField(default=200)})


ERRORS = {
    400: OpenApiResponse(description='A body that cannot be parsed: `{"message": "…", "status": 400}`.'),
    401: OpenApiResponse(description='Missing or unknown key: `{"message": "Unauthenticated."}`.'),
    429: OpenApiResponse(
        description="Over REPORTS_RATE_LIMIT requests per REPORTS_RATE_PERIOD seconds per key: "
        '`{"message": "Too Many Attempts."}`.'
    ),
}
NOT_FOUND = OpenApiResponse(
    description='Unknown id, or another user\'s report: `{"message": "Resource not found.", "status": 404}`.'
)
INVALID = OpenApiResponse(
    description='`{"message": {"<field>": ["<message>", …]}, "status": 422}`; a page that cannot be analysed '
    "is reported on `url` and nothing is stored."
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
    "`results=1` analyses the URL again (results, score, result and generated_at change); "
    "if that fails the answer is a 422 and nothing changes."
)

REPORTS = extend_schema_view(
    list=extend_schema(
        summary="List reports",
        description="The key owner's reports, 10 a page by default (Laravel's paginated envelope). "
        "Unusable values of search_by, result, sort_by, sort, per_page and page fall back to their defaults.",
        parameters=fallback_parameters(ReportFilterSet),
        responses={200: ReportSerializer(many=True), **ERRORS},
    ),
    retrieve=extend_schema(
        summary="Show a report", responses={200: _record_schema("ReportShow"), 404: NOT_FOUND, **ERRORS}
    ),
    create=extend_schema(
        summary="Create a report",
        description="Analyses the page now and stores the report in the project of the URL's host, "
        "which is made if the owner has none. Answers 201 with `status: 200` in the body, as the reference does.",
        request=_by_media_type(ReportCreateSerializer, ReportCreateFormSerializer),
        responses={201: _record_schema("ReportCreated"), 422: INVALID, **ERRORS},
    ),
    update=extend_schema(
        summary="Update a report",
        description=UPDATE_DOC,
        request=_by_media_type(ReportUpdateSerializer, ReportUpdateFormSerializer),
        responses={200: _record_schema("ReportUpdated"), 404: NOT_FOUND, 422: INVALID, **ERRORS},
    ),
    partial_update=extend_schema(
        summary="Update a report",
        description=UPDATE_DOC,
        request=_by_media_type(ReportUpdateSerializer, ReportUpdateFormSerializer),
        responses={200: _record_schema("ReportPatched"), 404: NOT_FOUND, 422: INVALID, **ERRORS},
    ),
    destroy=extend_schema(summary="Delete a report", responses={200: DELETED, 404: NOT_FOUND, **ERRORS}),
)


PROJECTS = extend_schema_view(
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
