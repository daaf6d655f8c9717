from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import ObjectNotUpdated
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponseRedirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django_tasks_db.admin import DBTaskResultAdmin
from django_tasks_db.models import DBTaskResult

from common.admin import ApiKeyAdmin, LargeTableAdmin
from reports import presentation, services
from reports.models import ApiKey, Audit, Project, Report, Webhook, WebhookDelivery

admin.site.register(ApiKey, ApiKeyAdmin)

# The progress view after "re-run analysis" lists the selected reports by id, up to this many.
MAX_IDS_IN_PROGRESS_URL = 500


class ProjectFilter(admin.SimpleListFilter):
    """The report list narrowed to one project, named in the querystring (`project__id__exact=<id>`).

    Django's RelatedFieldListFilter would list every project in the sidebar (50,000 at 10⁶
    reports: 450 KB a page). This one shows only the chosen project; the way in is a project's
    report count in the project list, which links here.
    """

    title = "project"
    parameter_name = "project__id__exact"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        value = self.value()
        if value is None:
            return []  # nothing chosen: no sidebar entry (has_output() is then False)
        name = Project.objects.filter(pk=int(value)).values_list("name", flat=True).first() if value.isdigit() else None
        return [(value, name or f"#{value} (none)")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Report]) -> QuerySet[Report]:
        value = self.value()
        if value is None:
            return queryset
        return queryset.filter(project_id=int(value)) if value.isdigit() else queryset.none()


@admin.register(Project)
class ProjectAdmin(LargeTableAdmin):
    list_display = ("name", "owner", "reports", "schedule", "next_run_at", "created_at")
    list_select_related = ("owner",)
    search_fields = ("name", "owner__username")
    # The schedule is set through the API (services.project_update), which computes the due time with it.
    readonly_fields = ("owner", "name", "created_at", "schedule", "next_run_at", "last_run_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # projects are made by their first report

    @admin.display(description="reports", ordering="report_count")
    def reports(self, project: Project) -> SafeString:
        """The kept count, linking to the report list narrowed to the project (ProjectFilter)."""
        url = f"{reverse('admin:reports_report_changelist')}?{ProjectFilter.parameter_name}={project.pk}"
        return format_html('<a href="{}">{}</a>', url, project.report_count)


@admin.register(Report)
class ReportAdmin(LargeTableAdmin):
    list_display = ("url", "project", "owner", "status", "result", "score", "generated_at")
    list_filter = ("status", "result", "privacy", ProjectFilter)
    list_select_related = ("project", "owner")
    # Served by the trigram index on PostgreSQL. No date_hierarchy: its links list the distinct
    # dates of the whole table, a scan of every report.
    search_fields = ("url",)
    actions = ("rerun_analysis",)
    # Read-only: privacy and password go through the API (which hashes passwords), results through analysis.
    fields = (
        "url",
        "project",
        "owner",
        "status",
        "error",
        "result",
        "score",
        "privacy",
        "has_password",
        "generated_at",
        "created_at",
        "updated_at",
        "checks",
        "results",
    )
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a report is made by analysing a page, through the API

    def delete_model(self, request: HttpRequest, obj: Report) -> None:
        services.report_delete(report=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Report]) -> None:
        services.reports_delete(reports=queryset)

    @admin.display(boolean=True, description="password set")
    def has_password(self, report: Report) -> bool:
        return report.has_password

    @admin.display(description="checks")
    def checks(self, report: Report) -> SafeString:
        return render_to_string("reports/admin_checks.html", {"categories": presentation.categories(report.results)})

    @admin.action(description="Re-run analysis of the selected reports")
    def rerun_analysis(self, request: HttpRequest, queryset: QuerySet[Report]) -> HttpResponseRedirect | None:
        queued = []
        for report in queryset:
            try:
                services.report_refresh(report=report)
            except ObjectNotUpdated:
                self.message_user(request, f"{report.url}: deleted meanwhile.", messages.WARNING)
            else:
                queued.append(report.pk)
        if not queued:
            return None
        self.message_user(
            request,
            f"Queued {len(queued)} analysis(es). The list shows the selected reports; "
            "their status goes from queued to running to done or failed (reload to follow).",
            messages.SUCCESS,
        )
        # The changelist narrowed to these reports is their progress view.
        ids = ",".join(map(str, queued[:MAX_IDS_IN_PROGRESS_URL]))
        return HttpResponseRedirect(f"{reverse('admin:reports_report_changelist')}?id__in={ids}")


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    list_display = ("url", "project", "events", "created_at")
    list_select_related = ("project",)
    search_fields = ("url", "project__name")
    # The secret signs deliveries; the admin never shows it (it was shown once, to the API caller).
    exclude = ("secret",)
    readonly_fields = ("project", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # made through the API, which generates or takes the secret


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(LargeTableAdmin):
    """The delivery log: every event sent, its body and how its attempts went (never counted whole: it grows)."""

    list_display = ("event", "webhook", "status", "attempts", "response_status", "created_at", "delivered_at")
    list_filter = ("status", "event")
    list_select_related = ("webhook",)
    search_fields = ("webhook__url", "webhook__project__name")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: WebhookDelivery | None = None) -> bool:
        return False  # a log: read it, or delete it


class QueueFilter(admin.SimpleListFilter):
    """The task list by queue, offering the configured queues: Django's own filter would read
    every row for the distinct names (SELECT DISTINCT over 10⁶ task results)."""

    title = "queue name"
    parameter_name = "queue_name"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        queues = set()
        for backend in settings.TASKS.values():
            queues.update(backend.get("QUEUES") or ["default"])
        return [(queue, queue) for queue in sorted(queues)]

    def queryset(self, request: HttpRequest, queryset: QuerySet[DBTaskResult]) -> QuerySet[DBTaskResult]:
        return queryset.filter(queue_name=self.value()) if self.value() else queryset


# The analyses' task results grow like the reports (one each, and one per re-run). Django's
# default admin counts them twice, lists distinct priorities and queues (scans), and sorts them
# all by enqueued_at: here the counts are bounded, the filters fixed, and the order
# (enqueued_at, id) has its index (migration 0010_task_result_admin_index).
admin.site.unregister(DBTaskResult)


@admin.register(DBTaskResult)
class TaskResultAdmin(DBTaskResultAdmin, LargeTableAdmin):
    list_filter = ("status", QueueFilter)
    ordering = ["-enqueued_at", "-id"]


@admin.register(Audit)
class AuditAdmin(LargeTableAdmin):
    """Site audits: read their progress and errors; they are made (and deleted with their pages) through the API."""

    list_display = ("url", "project", "owner", "status", "pages_found", "pages_done", "pages_failed", "created_at")
    list_filter = ("status",)
    list_select_related = ("project", "owner")
    search_fields = ("url", "project__name")
    exclude = ("password", "robots_txt", "summary")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Audit | None = None) -> bool:
        return False
