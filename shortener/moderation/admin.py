"""The moderation queue in the Django admin: links with open reports, grouped, with their reports inline."""

from django.contrib import admin, messages
from django.db.models import Count, Max, QuerySet
from django.http import HttpRequest

from shortener.models import LinkReport, ReportedLink
from shortener.moderation import reports


class OpenReportInline(admin.TabularInline):
    model = LinkReport
    fields = ("created_at", "reason", "resolved_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("-created_at",)

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(ReportedLink)
class ReportedLinkAdmin(admin.ModelAdmin):
    list_display = ("code", "url", "open_reports", "last_reported_at", "disabled_at", "owner")
    list_filter = (("disabled_at", admin.EmptyFieldListFilter),)
    search_fields = ("code", "url")
    fields = ("code", "url", "owner", "counter", "created_at", "disabled_at", "disabled_reason")
    readonly_fields = fields
    inlines = (OpenReportInline,)
    actions = ("disable_links", "enable_links", "dismiss_reports")

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return (
            reports.links_with_open_reports(super().get_queryset(request))
            .annotate(
                open_reports_count=Count("reports", filter=reports.OPEN),
                last_report=Max("reports__created_at", filter=reports.OPEN),
            )
            .select_related("owner")
            .order_by("-open_reports_count", "-last_report", "pk")
        )

    @admin.display(description="open reports", ordering="open_reports_count")
    def open_reports(self, link: ReportedLink) -> int:
        return link.open_reports_count

    @admin.display(description="last reported", ordering="last_report")
    def last_reported_at(self, link: ReportedLink) -> object:
        return link.last_report

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Disable the selected links (410, reports closed)", permissions=["change"])
    def disable_links(self, request: HttpRequest, queryset: QuerySet) -> None:
        for link in queryset.distinct():
            reports.link_disable(link=link, reason="Disabled by an admin")
        self.message_user(request, "Disabled.", messages.SUCCESS)

    @admin.action(description="Enable the selected links (reports closed)", permissions=["change"])
    def enable_links(self, request: HttpRequest, queryset: QuerySet) -> None:
        for link in queryset.distinct():
            reports.link_enable(link=link)
        self.message_user(request, "Enabled.", messages.SUCCESS)

    @admin.action(description="Dismiss the reports (keep the links as they are)", permissions=["change"])
    def dismiss_reports(self, request: HttpRequest, queryset: QuerySet) -> None:
        for link in queryset.distinct():
            reports.reports_dismiss(link=link)
        self.message_user(request, "Reports dismissed.", messages.SUCCESS)
