from django.contrib import admin, messages
from django.core.exceptions import ObjectNotUpdated, ValidationError
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from common.admin import ApiKeyAdmin
from reports import presentation, services
from reports.errors import AnalysisFailed
from reports.models import ApiKey, Project, Report

admin.site.register(ApiKey, ApiKeyAdmin)


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "report_count", "created_at")
    list_select_related = ("owner",)
    search_fields = ("name", "owner__username")
    readonly_fields = ("owner", "name", "created_at")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Project]:
        return super().get_queryset(request).annotate(report_count=Count("reports"))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # projects are made by their first report

    @admin.display(description="reports", ordering="report_count")
    def report_count(self, project: Project) -> int:
        return project.report_count


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = ("url", "project", "owner", "result", "score", "generated_at")
    list_filter = ("result", "privacy", "project")
    list_select_related = ("project", "owner")
    search_fields = ("url",)
    date_hierarchy = "generated_at"
    actions = ("rerun_analysis",)
    # Read-only: privacy and password go through the API (which hashes passwords), results through analysis.
    fields = (
        "url",
        "project",
        "owner",
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

    @admin.display(boolean=True, description="password set")
    def has_password(self, report: Report) -> bool:
        return report.has_password

    @admin.display(description="checks")
    def checks(self, report: Report) -> SafeString:
        return render_to_string("reports/admin_checks.html", {"categories": presentation.categories(report.results)})

    @admin.action(description="Re-run analysis of the selected reports")
    def rerun_analysis(self, request: HttpRequest, queryset: QuerySet[Report]) -> None:
        refreshed = 0
        for report in queryset:
            try:
                services.report_refresh(report=report)
            except AnalysisFailed as exc:
                self.message_user(request, f"{report.url}: {exc}", messages.ERROR)
            except ValidationError as exc:
                self.message_user(request, f"{report.url}: {' '.join(exc.messages)}", messages.ERROR)
            except ObjectNotUpdated:
                self.message_user(request, f"{report.url}: deleted meanwhile.", messages.WARNING)
            else:
                refreshed += 1
        if refreshed:
            self.message_user(request, f"Analysed {refreshed} report(s) again.", messages.SUCCESS)
