"""Interface A's HTML pages, mounted at the site root."""

from django.urls import path

from reports.views import analyse, audit_pages, lists, pages

app_name = "reports"

urlpatterns = [
    path("reports/", lists.report_list, name="report-list"),
    path("reports/projects", lists.project_list, name="project-list"),
    path("reports/new", analyse.report_new, name="report-new"),
    path("reports/<int:report_id>", pages.report_page, name="report-page"),
    path("reports/<int:report_id>/compare", pages.report_compare, name="report-compare"),
    path("reports/<int:report_id>.json", pages.report_download, name="report-download"),
    path("reports/<int:report_id>/progress", analyse.report_progress, name="report-progress"),
    path("reports/<int:report_id>/status", analyse.report_status, name="report-status"),
    path("reports/<int:report_id>/rerun", analyse.report_rerun, name="report-rerun"),
    path("audits/<int:audit_id>", audit_pages.audit_page, name="audit-page"),
    path("audits/<int:audit_id>/compare", audit_pages.audit_compare, name="audit-compare"),
]
