app_name = "reports"

urlpatterns: list = []
