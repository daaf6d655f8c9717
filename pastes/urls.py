from django.urls import path, register_converter

from pastes import attachment_pages, attachment_views, pages, views
from pastes.models import PASTE_ID_LENGTH


class PasteIdConverter:
    """Exactly a paste id, so that the HTML page's /{id} never shadows another path."""

    regex = f"[A-Za-z0-9]{{{PASTE_ID_LENGTH}}}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(PasteIdConverter, "pasteid")

app_name = "pastes"

urlpatterns = [
    # Browsers get the reader's pastes, API clients the API's index (pastes.pages.index).
    path("", pages.index, name="index"),
    path("new", pages.new, name="paste-new"),
    path("create", views.PasteCreateView.as_view(), name="paste-create"),
    path("paste/@<str:paste_id>", views.PasteDetailView.as_view(), name="paste-detail"),
    path("paste/@<str:paste_id>/raw", views.PasteRawView.as_view(), name="paste-raw"),
    path("paste/@<str:paste_id>/attachments", attachment_views.AttachmentListView.as_view(), name="attachment-list"),
    path(
        "paste/@<str:paste_id>/attachments/<str:attachment_id>",
        attachment_views.AttachmentDetailView.as_view(),
        name="attachment",
    ),
    path("edit/<str:paste_id>", views.PasteEditView.as_view(), name="paste-edit"),
    path("delete/<str:paste_id>", views.PasteDeleteView.as_view(), name="paste-delete"),
    path("accounts/@<str:username>", views.AccountView.as_view(), name="account"),
    path("<pasteid:paste_id>", pages.paste_page, name="paste-page"),
    path("<pasteid:paste_id>/edit", pages.edit, name="paste-edit-page"),
    path("<pasteid:paste_id>/delete", pages.delete, name="paste-delete-page"),
    path("<pasteid:paste_id>/fork", pages.fork, name="paste-fork"),
    path("<pasteid:paste_id>/download", pages.download, name="paste-download"),
    path("<pasteid:paste_id>/attachments", attachment_pages.attach, name="paste-attach-page"),
    path(
        "<pasteid:paste_id>/attachments/<str:attachment_id>/delete",
        attachment_pages.detach,
        name="paste-detach-page",
    ),
]
