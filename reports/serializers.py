"""What interface A reads and writes.

Output follows the reference product's resources; input messages follow its
Laravel wording ("The url field is required.") so that clients showing them to
people need no change.
"""

import json
from datetime import UTC, datetime
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import URLValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from common.renderers import RawJSON
from reports import budgets
from reports.analysis import netguard
from reports.audits import summary as audit_summary
from reports.models import SCORE_CATEGORIES, Audit, Project, Report, Webhook, WebhookEvent
from reports.webhook_targets import refused_target

# Laravel's timestamp format: ISO 8601 in UTC with microseconds.
TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"

PRIVACY_HELP = "0 public, 1 private (only the owner, signed in), 2 password-protected."
INVALID_URL = "The url must be a valid http or https URL."
URL_WITH_CREDENTIALS = "The url must not contain a user name or password."
PASSWORD_REQUIRED = "The password field is required when privacy is 2."


def _timestamp(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).strftime(TIMESTAMP_FORMAT)


def _messages(field: str, **extra: str) -> dict[str, str]:
    return {
        "required": f"The {field} field is required.",
        "null": f"The {field} field is required.",
        "blank": f"The {field} field is required.",
        "invalid": f"The {field} must be a string.",
        **extra,
    }


class CategoryScoresSerializer(serializers.Serializer):
    """One 0-100 score per category: SEO and accessibility as Lighthouse scores them, the others made like
    the overall score from that category's checks alone."""

    seo = serializers.IntegerField(allow_null=True, min_value=0, max_value=100)
    performance = serializers.IntegerField(allow_null=True, min_value=0, max_value=100)
    security = serializers.IntegerField(allow_null=True, min_value=0, max_value=100)
    accessibility = serializers.IntegerField(allow_null=True, min_value=0, max_value=100)
    miscellaneous = serializers.IntegerField(allow_null=True, min_value=0, max_value=100)


class ReportSerializer(serializers.ModelSerializer):
    project = serializers.CharField(source="project.name", read_only=True, help_text="The host of the URL.")
    password = serializers.BooleanField(
        source="has_password", read_only=True, help_text="Whether the page has a password; the password never leaves."
    )
    result = serializers.ChoiceField(
        choices=Report.Result.choices,
        allow_null=True,
        read_only=True,
        help_text="good, decent or bad; null until the first analysis is done.",
    )
    score = serializers.IntegerField(
        allow_null=True, read_only=True, help_text="0 to 100; null until the first analysis is done."
    )
    scores = CategoryScoresSerializer(
        read_only=True,
        help_text="category → 0 to 100: seo and accessibility as Lighthouse 12 scores its categories (the weighted "
        "share of passed checks among those that apply, with Lighthouse's weights), the others by the overall "
        "score's rules applied to that category's checks alone; each null until the first analysis is done.",
    )
    results = serializers.JSONField(
        read_only=True,
        help_text="category → check → {passed, importance, value, errors}; {} until the first analysis is done.",
    )
    status = serializers.ChoiceField(
        choices=Report.Status.choices,
        read_only=True,
        help_text="The analysis: queued, running, done or failed. While a re-run is queued or running, or after it "
        "failed, result, score, results and generated_at are those of the last analysis that was done.",
    )
    error = serializers.SerializerMethodField(help_text="Why the analysis failed (status failed), else null.")
    generated_at = serializers.DateTimeField(
        format=TIMESTAMP_FORMAT,
        allow_null=True,
        read_only=True,
        help_text="When the results were made; null until the first analysis is done.",
    )
    created_at = serializers.DateTimeField(format=TIMESTAMP_FORMAT, read_only=True)
    updated_at = serializers.DateTimeField(format=TIMESTAMP_FORMAT, read_only=True)
    metrics = serializers.SerializerMethodField(
        help_text="Lab metrics of a rendered analysis, as Lighthouse reports them under its mobile profile: "
        "{fcp, lcp, tbt, cls: {value, unit, rating (good, needs-improvement, poor), score (0-1)}, profile: "
        "{rtt_ms, throughput_kbps, cpu_slowdown}}; null when the page was read as served (not rendered)."
    )
    budget = serializers.SerializerMethodField(
        help_text="Whether the report meets its project's budget: {passed, failures: [{rule, name, expected, actual, "
        "message}]}; null when the project has no budget or the report has no results yet."
    )

    class Meta:
        model = Report
        fields = [
            "id",
            "url",
            "project",
            "result",
            "score",
            "scores",
            "results",
            "metrics",
            "status",
            "error",
            "privacy",
            "password",
            "generated_at",
            "created_at",
            "updated_at",
            "budget",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_budget(self, report: Report) -> dict | None:
        budget = report.project.budget
        if not budget or report.score is None:
            return None
        # A list fetches results as text (with_results_text); decode it only when the budget reads checks.
        needs_results = bool(budget.get("categories") or budget.get("checks"))
        if needs_results and hasattr(report, "results_text"):
            results = json.loads(report.results_text)
        else:
            results = report.results if needs_results else {}
        return budgets.evaluate(budget, score=report.score, results=results)

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_metrics(self, report: Report) -> dict | None:
        return (report.rendering or {}).get("metrics")

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_error(self, report: Report) -> str | None:
        return report.error or None

    def to_representation(self, report: Report) -> dict:
        # Built directly: DRF would build this serializer's fields from the model for every
        # instance and walk them for every report (most of a 25-report list's CPU time). The
        # fields above still describe the schema, and a test checks that both ways give the
        # same object.
        return {
            "id": report.pk,
            "url": report.url,
            "project": report.project.name,
            "result": str(report.result) or None,
            "score": report.score,
            "scores": {category: getattr(report, f"score_{category}") for category in SCORE_CATEGORIES},
            # Passed on as the database wrote it when the queryset fetched it as text.
            "results": RawJSON(report.results_text) if hasattr(report, "results_text") else report.results,
            "metrics": self.get_metrics(report),
            "status": str(report.status),
            "error": self.get_error(report),
            "privacy": int(report.privacy),
            "password": report.has_password,
            "generated_at": _timestamp(report.generated_at),
            "created_at": _timestamp(report.created_at),
            "updated_at": _timestamp(report.updated_at),
            "budget": self.get_budget(report),
        }


class ProjectSerializer(serializers.ModelSerializer):
    project = serializers.CharField(source="name", read_only=True, help_text="The project's name: a host.")
    budget = serializers.SerializerMethodField(help_text="{min_score, categories, checks}, or null for none.")
    alert_email = serializers.SerializerMethodField(help_text="Where alerts are mailed, or null.")
    created_at = serializers.DateTimeField(format=TIMESTAMP_FORMAT, read_only=True)
    schedule = serializers.ChoiceField(
        choices=Project.Schedule.choices, read_only=True, help_text="How often the project is re-run."
    )
    next_run_at = serializers.DateTimeField(
        format=TIMESTAMP_FORMAT,
        read_only=True,
        allow_null=True,
        help_text="When the next scheduled re-run is due; null without one.",
    )
    last_run_at = serializers.DateTimeField(
        format=TIMESTAMP_FORMAT,
        read_only=True,
        allow_null=True,
        help_text="When the last scheduled re-run started; null before one.",
    )

    class Meta:
        model = Project
        fields = ["project", "budget", "alert_email", "schedule", "next_run_at", "last_run_at", "created_at"]
        read_only_fields = fields

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_budget(self, project: Project) -> dict | None:
        return project.budget or None

    @extend_schema_field(serializers.EmailField(allow_null=True))
    def get_alert_email(self, project: Project) -> str | None:
        return project.alert_email or None


class StringField(serializers.CharField):
    """A CharField that takes only strings: a JSON number or boolean is a wrong type, not text."""

    def to_internal_value(self, data: object) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


SCHEDULE_INVALID = "The schedule must be one of none, daily, weekly."


class ScheduleField(serializers.ChoiceField):
    """One of the schedules, as a string: a number, a boolean, a list or an object is refused."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(
            choices=Project.Schedule.choices,
            error_messages={"invalid_choice": SCHEDULE_INVALID, "invalid": SCHEDULE_INVALID},
            **kwargs,
        )

    def to_internal_value(self, data: object) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class PrivacyField(serializers.ChoiceField):
    def __init__(self, *, allow_null: bool = True, **kwargs: object) -> None:
        super().__init__(
            choices=Report.Privacy.choices,
            allow_null=allow_null,
            error_messages={"invalid_choice": "The privacy must be 0, 1 or 2."},
            help_text=PRIVACY_HELP,
            **kwargs,
        )


class PasswordField(StringField):
    def __init__(self, *, allow_null: bool = True, **kwargs: object) -> None:
        super().__init__(
            max_length=Report.PASSWORD_MAX_LENGTH,
            trim_whitespace=False,
            allow_blank=True,
            allow_null=allow_null,
            error_messages=_messages(
                "password", max_length=f"The password may not be greater than {Report.PASSWORD_MAX_LENGTH} characters."
            ),
            help_text="The report page's password; required with privacy 2 and ignored otherwise.",
            **kwargs,
        )


class HttpUrlField(StringField):
    """A page's address: http or https. validate_url checks the rest (URLValidator, no credentials).

    Its schema carries HTTP_URL_PATTERN (reports/schema.py), so that what the schema allows and
    what the API takes agree on the scheme at least: {"url": "0"} is outside both.
    """


# Blank is what str.strip() removes (the field trims it before validating), spelled out: the
# schema's regex dialect (ECMA-262) has another \s. Then a scheme, and no blank inside.
_BLANK = "".join(f"\\u{ord(char):04x}" for char in map(chr, range(0x3001)) if char.isspace())
HTTP_URL_PATTERN = f"^[{_BLANK}]*[Hh][Tt][Tt][Pp][Ss]?://[^{_BLANK}\\u0000]+[{_BLANK}]*$"


class ReportCreateSerializer(serializers.Serializer):
    url = HttpUrlField(
        min_length=1,  # for the schema: an empty url is answered as a missing one
        max_length=Report.URL_MAX_LENGTH,
        error_messages=_messages(
            "url", max_length=f"The url may not be greater than {Report.URL_MAX_LENGTH} characters."
        ),
        help_text="The page to analyse: an http or https URL of at most 2048 characters, without credentials.",
    )
    privacy = PrivacyField(required=False, default=Report.Privacy.PUBLIC)
    password = PasswordField(required=False, default="")

    # What a URL on a private address is told (after "The url points to a loopback address (…); ").
    public_only = "only pages on public addresses can be analysed."

    def validate_url(self, value: str) -> str:
        try:
            URLValidator(schemes=["http", "https"])(value)
        except DjangoValidationError:
            raise serializers.ValidationError(INVALID_URL, code="invalid_url") from None
        # Credentials in a URL would be stored and shown on the report page.
        if "@" in urlsplit(value).netloc:
            raise serializers.ValidationError(URL_WITH_CREDENTIALS, code="url_with_credentials")
        # Refused here as webhooks' URLs are, rather than accepted and then refused by every fetch.
        refused = None if settings.REPORTS_ALLOW_PRIVATE_NETWORKS else netguard.refused_target(value)
        if refused:
            raise serializers.ValidationError(f"The url points to {refused}; {self.public_only}", code="private")
        return value

    def validate(self, attrs: dict) -> dict:
        attrs["privacy"] = Report.Privacy.PUBLIC if attrs.get("privacy") is None else attrs["privacy"]
        if attrs["privacy"] == Report.Privacy.PASSWORD and not attrs.get("password"):
            raise serializers.ValidationError({"password": [PASSWORD_REQUIRED]}, code="required")
        return attrs


class ReportUpdateSerializer(serializers.Serializer):
    """PUT and PATCH alike: every parameter is optional and only those given change."""

    privacy = PrivacyField(required=False)
    password = PasswordField(required=False)
    results = serializers.BooleanField(
        required=False,
        default=False,
        error_messages={"invalid": "The results must be 0 or 1."},
        help_text="1 runs the analysis again (new results, score and generated_at); 0 (default) does not.",
    )

    def validate(self, attrs: dict) -> dict:
        report: Report = self.context["report"]
        privacy = report.privacy if attrs.get("privacy") is None else attrs["privacy"]
        if privacy == Report.Privacy.PASSWORD and not attrs.get("password") and not report.has_password:
            raise serializers.ValidationError({"password": [PASSWORD_REQUIRED]}, code="required")
        return attrs


class ProjectUpdateSerializer(serializers.Serializer):
    """PATCH /projects/{project}: only the parameters given change; null clears one."""

    budget = serializers.JSONField(
        required=False,
        allow_null=True,
        help_text='{"min_score": 0-100, "categories": {"seo": 0-100, …}, "checks": ["title", …]}, every key '
        "optional; null or {} removes the budget.",
    )
    alert_email = serializers.EmailField(
        required=False,
        allow_null=True,
        allow_blank=True,
        max_length=254,
        error_messages={
            **_messages("alert_email"),
            "invalid": "The alert email must be a valid email address.",
            "blank": "The alert email must be a valid email address.",
        },
        help_text="Where budget.failed and check.regressed are mailed; null or empty stops the mails.",
    )
    schedule = ScheduleField(
        required=False,
        allow_null=True,
        help_text="Re-run the project each day or week (its reports' URLs analysed again as new reports); "
        "none or null stops it. A changed schedule is first due one period from now.",
    )

    def validate_budget(self, value: object) -> dict:
        budget, errors = budgets.validate(value)
        if errors:
            raise serializers.ValidationError(errors)
        return budget

    def to_internal_value(self, data: object) -> dict:
        try:
            return super().to_internal_value(data)
        except serializers.ValidationError as exc:
            # The budget's errors are keyed by their own path (budget.min_score…), like Laravel's dot keys.
            detail = dict(exc.detail)
            nested = detail.pop("budget", None)
            if isinstance(nested, list) and nested and isinstance(nested[0], dict):
                detail.update(nested[0])
            elif isinstance(nested, dict):
                detail.update(nested)
            elif nested is not None:
                detail["budget"] = nested
            raise serializers.ValidationError(detail) from None


class WebhookSerializer(serializers.ModelSerializer):
    project = serializers.CharField(source="project.name", read_only=True)
    created_at = serializers.DateTimeField(format=TIMESTAMP_FORMAT, read_only=True)

    class Meta:
        model = Webhook
        fields = ["id", "project", "url", "events", "created_at"]
        read_only_fields = fields


class WebhookCreateSerializer(serializers.Serializer):
    url = StringField(
        max_length=Webhook.URL_MAX_LENGTH,
        error_messages=_messages(
            "url", max_length=f"The url may not be greater than {Webhook.URL_MAX_LENGTH} characters."
        ),
        help_text="Where to POST the events: a public http or https URL.",
    )
    events = serializers.JSONField(
        error_messages=_messages("events"),
        help_text=f"The events to receive, a non-empty list of: {', '.join(WebhookEvent.values)}.",
    )
    secret = StringField(
        required=False,
        allow_null=True,
        min_length=16,
        max_length=255,
        error_messages=_messages(
            "secret",
            min_length="The secret must be at least 16 characters.",
            max_length="The secret may not be greater than 255 characters.",
        ),
        help_text="The HMAC key (16 to 255 characters); generated when absent. Shown once, in this answer.",
    )

    def validate_url(self, value: str) -> str:
        reason = refused_target(value)
        if reason:
            raise serializers.ValidationError(reason)
        return value

    def validate_events(self, value: object) -> list[str]:
        if not isinstance(value, list) or not value:
            raise serializers.ValidationError("The events must be a non-empty list.")
        unknown = [event for event in value if event not in WebhookEvent.values]
        if unknown:
            raise serializers.ValidationError(
                f"Unknown events: {', '.join(map(str, unknown))}; known: {', '.join(WebhookEvent.values)}."
            )
        return list(dict.fromkeys(value))


class AuditSerializer(serializers.ModelSerializer):
    """A site audit: progress while it runs; once done, its summary (reports/audits/summary.py)."""

    project = serializers.CharField(source="project.name", read_only=True)
    password = serializers.BooleanField(source="has_password", read_only=True)
    status = serializers.ChoiceField(choices=Audit.Status.choices, read_only=True)
    error = serializers.SerializerMethodField()
    summary = serializers.SerializerMethodField(
        help_text="Once done: {score, result, scores, pages_analysed, pages_failed, issues: [{category, check, "
        "importance, pages_count, pages: [{id, url}]}]}, issues worst first; null before."
    )
    budget = serializers.SerializerMethodField(
        help_text="The project's budget on the audit's mean scores, each required check passing on every page: "
        "{passed, failures}; null while running or when the project has no budget."
    )
    created_at = serializers.DateTimeField(format=TIMESTAMP_FORMAT, read_only=True)
    started_at = serializers.DateTimeField(format=TIMESTAMP_FORMAT, read_only=True, allow_null=True)
    finished_at = serializers.DateTimeField(format=TIMESTAMP_FORMAT, read_only=True, allow_null=True)

    class Meta:
        model = Audit
        fields = [
            "id",
            "project",
            "url",
            "status",
            "error",
            "max_pages",
            "pages_found",
            "pages_done",
            "pages_failed",
            "privacy",
            "password",
            "created_at",
            "started_at",
            "finished_at",
            "summary",
            "budget",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_error(self, audit: Audit) -> str | None:
        return audit.error or None

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_summary(self, audit: Audit) -> dict | None:
        return audit.summary if audit.status == Audit.Status.DONE else None

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_budget(self, audit: Audit) -> dict | None:
        return audit_summary.budget(audit)

    def to_representation(self, audit: Audit) -> dict:
        return {
            "id": audit.pk,
            "project": audit.project.name,
            "url": audit.url,
            "status": str(audit.status),
            "error": self.get_error(audit),
            "max_pages": audit.max_pages,
            "pages_found": audit.pages_found,
            "pages_done": audit.pages_done,
            "pages_failed": audit.pages_failed,
            "privacy": int(audit.privacy),
            "password": audit.has_password,
            "created_at": _timestamp(audit.created_at),
            "started_at": _timestamp(audit.started_at),
            "finished_at": _timestamp(audit.finished_at),
            "summary": self.get_summary(audit),
            "budget": self.get_budget(audit),
        }


class AuditListSerializer(AuditSerializer):
    """A list leaves the summaries out (each may name hundreds of pages): GET the audit for it."""

    class Meta(AuditSerializer.Meta):
        fields = [field for field in AuditSerializer.Meta.fields if field != "summary"]
        read_only_fields = fields

    def to_representation(self, audit: Audit) -> dict:
        data = super().to_representation(audit)
        del data["summary"]
        return data


class AuditCreateSerializer(ReportCreateSerializer):
    max_pages = serializers.IntegerField(
        required=False,
        default=50,
        min_value=1,
        error_messages={
            "invalid": "The max pages must be an integer.",
            "min_value": "The max pages must be at least 1.",
        },
        help_text="The most pages to crawl (default 50, at most REPORTS_AUDIT_MAX_PAGES, 500 by default).",
    )
    project = StringField(
        required=False,
        allow_null=True,
        max_length=255,
        error_messages=_messages("project"),
        help_text="One of your projects (a host); default: the project of the URL's host, made on first use.",
    )

    public_only = "only sites on public addresses can be audited."

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["url"].help_text = "The start page: an http or https URL without credentials."

    def validate_max_pages(self, value: int) -> int:
        # bool is an int in Python; JSON true is no page count.
        if isinstance(self.initial_data, dict) and isinstance(self.initial_data.get("max_pages"), bool):
            raise serializers.ValidationError("The max pages must be an integer.")
        if value > settings.REPORTS_AUDIT_MAX_PAGES:
            raise serializers.ValidationError(
                f"The max pages may not be greater than {settings.REPORTS_AUDIT_MAX_PAGES}."
            )
        return value

    def validate_project(self, value: str | None) -> Project | None:
        if not value:
            return None
        project = Project.objects.filter(owner=self.context["owner"], name=value.strip().lower()).first()
        if project is None:
            raise serializers.ValidationError("The selected project is invalid.")
        return project
