"""Interface A's REST API, mounted at /api/v1/."""

from rest_framework.routers import SimpleRouter

from reports.views.audits import AuditViewSet
from reports.views.projects import ProjectViewSet
from reports.views.reports import ReportViewSet

app_name = "reports-api"

# Like the reference, paths answer with or without a trailing slash.
router = SimpleRouter()
router.trailing_slash = "/?"
router.register("reports", ReportViewSet, basename="report")
router.register("projects", ProjectViewSet, basename="project")
router.register("audits", AuditViewSet, basename="audit")

urlpatterns = router.urls
