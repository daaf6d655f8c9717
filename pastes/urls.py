from django.urls import path, register_converter

from pastes import (
    attachment_pages,
    attachment_views,
    comment_pages,
    comment_views,
    embeds,
    file_pages,
    file_views,
    pages,
    views,
)
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
    path("paste/@<str:paste_id>/comments", comment_views.CommentListView.as_view(), name="paste-comments"),
    path(
        "paste/@<str:paste_id>/comments/<str:comment_id>",
        comment_views.CommentDetailView.as_view(),
        name="paste-comment",
    ),
    path("paste/@<str:paste_id>/files/<int:number>/raw", file_views.FileRawView.as_view(), name="paste-file-raw"),
    path("paste/@<str:paste_id>/revisions", file_views.RevisionListView.as_view(), name="paste-revisions"),
    path(
        "paste/@<str:paste_id>/revisions/<int:number>",
        file_views.RevisionDetailView.as_view(),
        name="paste-revision",
    ),
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
    path("<pasteid:paste_id>/comments", comment_pages.post_comment, name="paste-comment-page"),
    path(
        "<pasteid:paste_id>/comments/<int:comment_id>/delete",
        comment_pages.delete_comment,
        name="paste-comment-delete-page",
    ),
    path("<pasteid:paste_id>.js", embeds.embed_script, name="paste-embed-script"),
    path("<pasteid:paste_id>/embed", embeds.embed_frame, name="paste-embed"),
    path("<pasteid:paste_id>/files/<int:number>/download", file_pages.download_file, name="paste-file-download"),
    path("<pasteid:paste_id>/download.zip", file_pages.download_zip, name="paste-zip"),
    path("<pasteid:paste_id>/history", file_pages.history, name="paste-history"),
    path("<pasteid:paste_id>/attachments", attachment_pages.attach, name="paste-attach-page"),
    path(
        "<pasteid:paste_id>/attachments/<str:attachment_id>/delete",
        attachment_pages.detach,
        name="paste-detach-page",
    ),
]
