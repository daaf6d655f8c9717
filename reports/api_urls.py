"""Interface A's REST API, mounted at /api/v1/."""

app_name = "reports-api"

urlpatterns: list = []
