"""Interface A's HTML pages, mounted at the site root."""

from django.urls import path

from reports.views import pages

app_name = "reports"

urlpatterns = [
    path("reports/<int:report_id>", pages.report_page, name="report-page"),
]
