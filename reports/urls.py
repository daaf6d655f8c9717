"""Interface A's HTML pages, mounted at the site root."""

from django.urls import path

from .views import lists, pages

app_name = "reports"

urlpatterns = [
    path("reports/", lists.report_list, name="report-list"),
    path("reports/projects", lists.project_list, name="project-list"),
    path("reports/<int:report_id>", pages.report_page, name="report-page"),
    path("reports/<int:report_id>.json", pages.report_download, name="report-download"),
]
