app_name = "shortener"

urlpatterns: list = []
