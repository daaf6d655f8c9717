app_name = "pastes"

urlpatterns: list = []
