"""OpenAPI descriptions of interface A (/api/v1/reports, /api/v1/projects and /api/v1/audits)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import serializers

from common.permissions import READ_ONLY_KEY
from reports.filters import AuditFilterSet, ProjectFilterSet, ReportFilterSet, fallback_parameters
from reports.models import Report
from reports.serializers import (
    HTTP_URL_PATTERN,
    AuditCreateSerializer,
    AuditListSerializer,
    AuditSerializer,
    PasswordField,
    PrivacyField,
    ProjectSerializer,
    ProjectUpdateSerializer,
    ReportCreateSerializer,
    ReportSerializer,
    ReportUpdateSerializer,
    WebhookCreateSerializer,
    WebhookSerializer,
)


class HttpUrlFieldSchema(OpenApiSerializerFieldExtension):
    """The url of a new report: the schema names the schemes the API takes (before, any string)."""

    target_class = "reports.serializers.HttpUrlField"

    def map_serializer_field(self, auto_schema: AutoSchema, direction: str) -> dict:
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        return {**schema, "format": "uri", "pattern": HTTP_URL_PATTERN}


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
# Every operation that writes: a read key (scope `read`) is refused before anything else is looked at.
READ_ONLY = OpenApiResponse(
    description=f'The API key is read-only (scope `read`): `{{"message": "{READ_ONLY_KEY}", "status": 403}}`.',
    response=inline_serializer(
        "ReadOnlyKeyError",
        {"message": serializers.CharField(default=READ_ONLY_KEY), "status": serializers.IntegerField(default=403)},
    ),
)
WRITE_ERRORS = {**ERRORS, 403: READ_ONLY}
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
    "report; otherwise it is **202** with the report as it is now (`data.status` `queued` or `running`, "
    "`status: 202` in the body) and a `Location` header with its URL: GET it until `data.status` is `done` or "
    "`failed` (then `data.error` says why)."
)
PRIVATE_DOC = (
    "A URL whose host is on an address that is not public (loopback, private, link-local and every other "
    "IANA special-purpose range) is refused at once, a 422 on `url`, unless REPORTS_ALLOW_PRIVATE_NETWORKS."
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

REPORTS = extend_schema_view(
    list=extend_schema(
        summary="List reports",
        description="The key owner's reports, 10 a page by default (Laravel's paginated envelope). "
        "`min_score` and `min_score_<category>` (seo, performance, security, accessibility, miscellaneous) keep "
        "the reports scoring at least that much, overall or in that category (`scores`); a report not analysed "
        "yet has no score and is left out by them. "
        "Unusable values of search_by, result, min_score…, sort_by, sort, per_page and page fall back to their "
        "defaults. "
        "Reports whose analysis is not done yet are listed too, with their `status`; until their first analysis "
        "is done, `result`, `score`, `scores`' values and `generated_at` are null and `results` is `{}`. The "
        "`result` and score filters and `sort_by=result` use the last analysis that was done. "
        "`meta.total` is exact (kept per project) unless `search`, `result` or a score filter narrows the list to "
        "more than 1,000 reports: then it is PostgreSQL's estimate and `meta.total_is_estimate` is true; "
        "`links.next` is exact either way. A page's ids are read from the index of its sort, from the nearer end "
        "of the list.",
        parameters=fallback_parameters(ReportFilterSet),
        responses={200: ReportSerializer(many=True), **ERRORS},
    ),
    retrieve=extend_schema(
        summary="Show a report", responses={200: _record_schema("ReportShow"), 404: NOT_FOUND, **ERRORS}
    ),
    create=extend_schema(
        summary="Create a report",
        description="Stores the report in the project of the URL's host, which is made if the owner has none, "
        "and analyses the page. Answers 201 with the finished report and `status: 200` in the body, as the "
        "reference does. " + ACCEPTED_DOC + " " + PRIVATE_DOC,
        request=_by_media_type(ReportCreateSerializer, ReportCreateFormSerializer),
        parameters=[LOCATION],
        responses={201: _record_schema("ReportCreated"), 202: ACCEPTED, 422: INVALID, **WRITE_ERRORS},
    ),
    update=extend_schema(
        summary="Update a report",
        description=UPDATE_DOC,
        request=_by_media_type(ReportUpdateSerializer, ReportUpdateFormSerializer),
        parameters=[LOCATION],
        responses={
            200: _record_schema("ReportUpdated"),
            202: ACCEPTED,
            404: NOT_FOUND,
            422: INVALID,
            **WRITE_ERRORS,
        },
    ),
    partial_update=extend_schema(
        summary="Update a report",
        description=UPDATE_DOC,
        request=_by_media_type(ReportUpdateSerializer, ReportUpdateFormSerializer),
        parameters=[LOCATION],
        responses={
            200: _record_schema("ReportPatched"),
            202: ACCEPTED,
            404: NOT_FOUND,
            422: INVALID,
            **WRITE_ERRORS,
        },
    ),
    destroy=extend_schema(summary="Delete a report", responses={200: DELETED, 404: NOT_FOUND, **WRITE_ERRORS}),
    compare=extend_schema(
        summary="Compare two reports",
        description="What changed in this report since the report `with`: score deltas overall and per category, "
        "and each check as regressed, improved or unchanged (reports/README.md). `format=markdown` answers "
        "text/markdown, a summary for a pull-request comment. Both reports must be the key owner's and analysed.",
        parameters=[
            OpenApiParameter(
                "with",
                {"type": "integer", "minimum": 1},
                required=True,
                description="The id of the report to compare with.",
            ),
            OpenApiParameter("format", str, enum=["json", "markdown"], description="markdown: text/markdown."),
        ],
        responses={
            200: OpenApiResponse(description="{data: {report, with, score, categories, checks, summary}, status}"),
            404: NOT_FOUND,
            422: INVALID,
            **ERRORS,
        },
    ),
)

WEBHOOKS_DOC = {
    "summary": "List (GET) or add (POST) a project's webhooks",
    "description": "POST answers 201 with the webhook and its `secret`, shown this once (generated when absent). "
    "Deliveries are signed: `X-Webtools-Signature: sha256=<HMAC-SHA256 of the body>`.",
    "request": WebhookCreateSerializer,
}
WEBHOOK_RESPONSES = {
    200: inline_serializer(
        "WebhookList", {"data": WebhookSerializer(many=True), "status": serializers.IntegerField(default=200)}
    ),
    201: inline_serializer(
        "WebhookCreated",
        {
            "data": inline_serializer(
                "WebhookWithSecret", {**WebhookSerializer().get_fields(), "secret": serializers.CharField()}
            ),
            "status": serializers.IntegerField(default=201),
        },
    ),
    404: NOT_FOUND,
    422: INVALID,
}

PROJECTS = extend_schema_view(
    partial_update=extend_schema(
        summary="Set a project's budget, alert e-mail and schedule",
        description="Only the parameters given change; null removes one. Every report answer then carries "
        "`budget: {passed, failures}` (null without a budget). `schedule` (none, daily, weekly) re-runs the "
        "project each period, once, as new reports of its URLs; `next_run_at` says when.",
        request=ProjectUpdateSerializer,
        responses={
            200: inline_serializer(
                "ProjectUpdated", {"data": ProjectSerializer(), "status": serializers.IntegerField(default=200)}
            ),
            404: NOT_FOUND,
            422: INVALID,
            **WRITE_ERRORS,
        },
    ),
    # One action, two methods: only POST writes, so only POST can meet the read key's 403.
    webhooks=[
        extend_schema(methods=["GET"], **WEBHOOKS_DOC, responses={**WEBHOOK_RESPONSES, **ERRORS}),
        extend_schema(methods=["POST"], **WEBHOOKS_DOC, responses={**WEBHOOK_RESPONSES, **WRITE_ERRORS}),
    ],
    webhook_delete=extend_schema(summary="Delete a webhook", responses={200: DELETED, 404: NOT_FOUND, **WRITE_ERRORS}),
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
            **WRITE_ERRORS,
        },
    ),
)


class AuditCreateFormSerializer(AuditCreateSerializer):
    privacy = PrivacyField(required=False, default=Report.Privacy.PUBLIC, allow_null=False)
    password = PasswordField(required=False, default="", allow_null=False)


AUDIT_NOT_FOUND = OpenApiResponse(
    description='Unknown id, or another user\'s audit: `{"message": "Resource not found.", "status": 404}`.'
)

AUDITS = extend_schema_view(
    list=extend_schema(
        summary="List site audits",
        description="The key owner's site audits, newest first, 10 a page by default (Laravel's paginated "
        "envelope), without their summaries (GET an audit for it). Unusable values of status, sort_by, sort, "
        "per_page and page fall back to their defaults.",
        parameters=fallback_parameters(AuditFilterSet),
        responses={200: AuditListSerializer(many=True), **ERRORS},
    ),
    retrieve=extend_schema(
        summary="Show a site audit",
        description="Its progress (`status`, `pages_found`, `pages_done`, `pages_failed`) and, once done, its "
        "`summary`: mean scores and every failing check with the pages it fails on, worst first.",
        responses={
            200: inline_serializer(
                "AuditShow", {"data": AuditSerializer(), "status": serializers.IntegerField(default=200)}
            ),
            404: AUDIT_NOT_FOUND,
            **ERRORS,
        },
    ),
    create=extend_schema(
        summary="Queue a site audit",
        description="Crawls the site from `url` (same-host links and the sitemap, as robots.txt allows) and "
        "analyses up to `max_pages` pages, each a report of the project. Answers **202** at once with the "
        "audit and `Location`: GET it until `data.status` is `done` or `failed`. " + PRIVATE_DOC,
        request=_by_media_type(AuditCreateSerializer, AuditCreateFormSerializer),
        parameters=[
            OpenApiParameter(
                "Location",
                type=str,
                location=OpenApiParameter.HEADER,
                response=[202],
                description="The audit's URL, to GET until `data.status` is `done` or `failed`.",
            )
        ],
        responses={
            202: inline_serializer(
                "AuditAccepted", {"data": AuditSerializer(), "status": serializers.IntegerField(default=202)}
            ),
            422: INVALID,
            **WRITE_ERRORS,
            429: OpenApiResponse(
                description='Over REPORTS_RATE_LIMIT requests per period (`{"message": "Too Many Attempts."}`), '
                "or the key owner already has REPORTS_AUDIT_MAX_QUEUED audits queued or running: "
                '`{"message": "You have 5 audits queued or running, …", "status": 429}`, until one is done.'
            ),
        },
    ),
    destroy=extend_schema(
        summary="Delete a site audit and its pages",
        responses={
            200: inline_serializer(
                "AuditDeleted",
                {
                    "id": serializers.IntegerField(),
                    "object": serializers.CharField(default="audit"),
                    "deleted": serializers.BooleanField(default=True),
                    "status": serializers.IntegerField(default=200),
                },
            ),
            404: AUDIT_NOT_FOUND,
            **WRITE_ERRORS,
        },
    ),
    compare=extend_schema(
        summary="Compare two site audits",
        description="What changed in this audit since the audit `with`: mean score deltas overall and per "
        "category, and each check as regressed (passed on every page before, fails on some now), improved or "
        "unchanged, with on how many pages it fails now and before. `format=markdown` answers text/markdown. "
        "Both audits must be the key owner's and done.",
        parameters=[
            OpenApiParameter(
                "with", {"type": "integer", "minimum": 1}, required=True, description="The id of the audit."
            ),
            OpenApiParameter("format", str, enum=["json", "markdown"], description="markdown: text/markdown."),
        ],
        responses={
            200: OpenApiResponse(description="{data: {report, with, score, categories, checks, summary}, status}"),
            404: AUDIT_NOT_FOUND,
            422: INVALID,
            **ERRORS,
        },
    ),
    export=extend_schema(
        summary="Export a site audit's pages or grouped issues",
        description="`pages`: one row per page; `issues`: one row per failing check and page, worst check first. "
        "CSV or JSON, streamed.",
        parameters=[
            OpenApiParameter("what", str, location=OpenApiParameter.PATH, enum=["pages", "issues"]),
            OpenApiParameter("fmt", str, location=OpenApiParameter.PATH, enum=["csv", "json"]),
        ],
        responses={
            200: OpenApiResponse(
                description='`.csv`: text/csv, a header row then the rows; `.json`: {"audit": id, "pages" or '
                '"issues": [rows]}.'
            ),
            404: AUDIT_NOT_FOUND,
            **ERRORS,
        },
    ),
)
