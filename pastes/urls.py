from django.urls import path

from pastes import views

app_name = "pastes"

urlpatterns = [
    path("", views.PasteIndexView.as_view(), name="index"),
    path("create", views.PasteCreateView.as_view(), name="paste-create"),
    path("paste/@<str:paste_id>", views.PasteDetailView.as_view(), name="paste-detail"),
    path("paste/@<str:paste_id>/raw", views.PasteRawView.as_view(), name="paste-raw"),
    path("edit/<str:paste_id>", views.PasteEditView.as_view(), name="paste-edit"),
    path("delete/<str:paste_id>", views.PasteDeleteView.as_view(), name="paste-delete"),
    path("accounts/@<str:username>", views.AccountView.as_view(), name="account"),
]
