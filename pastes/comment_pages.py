"""The discussion on a paste's page: post a comment or a reply (a form with CSRF), delete one.

The same rules as the API (pastes.comments): who may read the paste may comment, the paste's
owner deletes any comment and an author their own, and posts count against the same limit
per address. Under an encrypted paste, pastes/static/pastes/comments.js encrypts the text
with the key in the link before the form is posted, so the server gets only the envelope.
"""

from django.contrib import messages as flash
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from rest_framework.exceptions import ValidationError

from common.sign_in import signed_in
from pastes import comments, services
from pastes.comment_views import MAX_COMMENT_ID, CommentInputSerializer, CommentThrottle
from pastes.errors import PasteNotFound, PastesError
from pastes.page_messages import detail_message, first_detail, page_message
from pastes.pages import NOT_FOUND, _is_unlocked, _reader


def _error_page(request: HttpRequest, status: int, message: str) -> HttpResponse:
    return render(request, "error.html", {"status": status, "message": message}, status=status)


@require_POST
def post_comment(request: HttpRequest, paste_id: str) -> HttpResponse:
    reader = _reader(request)
    try:
        paste = services.paste_get_visible(paste_id=paste_id, user=reader)
    except PasteNotFound:
        return _error_page(request, 404, NOT_FOUND)
    if not _is_unlocked(request, paste):
        return redirect("pastes:paste-page", paste_id=paste.id)  # which asks for the password first
    if paste.burn_after_read and not paste.is_owned_by(reader):
        return _error_page(request, 404, _(comments.NoDiscussion.message))
    outcome = CommentThrottle().hit(request)
    if outcome is not None and not outcome.allowed:
        response = _error_page(request, 429, _("Too many comments from your address: try again in a minute."))
        response["Retry-After"] = str(outcome.retry_after)
        return response
    data = {"text": request.POST.get("text", "").replace("\r\n", "\n")}
    if reader is None:
        data["nickname"] = request.POST.get("nickname", "")
    if request.POST.get("parent_id"):
        parent_id = request.POST["parent_id"]
        data["parent_id"] = int(parent_id) if parent_id.isascii() and parent_id.isdigit() else parent_id
    serializer = CommentInputSerializer(data=data)
    try:
        serializer.is_valid(raise_exception=True)
        values = serializer.validated_data
        comments.comment_create(
            paste_id=paste.pk,
            author=reader,
            nickname=values.get("nickname", "").strip(),
            text=values["text"],
            parent_id=values.get("parent_id"),
        )
    except ValidationError as error:
        flash.error(request, detail_message(first_detail(error.detail)))
    except PastesError as error:
        if error.status == 404 and not isinstance(error, comments.NoDiscussion):
            return _error_page(request, 404, NOT_FOUND)
        flash.error(request, page_message(error))
    else:
        flash.success(request, _("Comment posted."))
    return redirect("pastes:paste-page", paste_id=paste.id)


@signed_in
@require_POST
def delete_comment(request: HttpRequest, paste_id: str, comment_id: int) -> HttpResponse:
    if comment_id > MAX_COMMENT_ID:
        return _error_page(request, 404, _(comments.CommentNotFound.message))
    try:
        comments.comment_delete(paste_id=paste_id, comment_id=comment_id, user=request.user)
    except PastesError as error:
        message = NOT_FOUND if isinstance(error, PasteNotFound) else page_message(error)
        return _error_page(request, error.status, message)
    flash.success(request, _("Comment deleted."))
    return redirect("pastes:paste-page", paste_id=paste_id)
