"""The paste page's attachment forms: attach a file, remove one (the owner, signed in, with CSRF).

Both go through pastes.attachments, so limits, quota and wording are the API's; the outcome is
shown on the paste page as a message after the redirect. The list itself, with image previews,
is pastes/templates/pastes/attachments.html, included by the paste page.
"""

from django.contrib import messages as flash
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from common.sign_in import signed_in
from pastes import attachments
from pastes.errors import PastesError
from pastes.page_messages import page_message
from pastes.pages import _own_paste


@signed_in
@require_POST
def attach(request: HttpRequest, paste_id: str) -> HttpResponse:
    paste = _own_paste(request, paste_id)
    if isinstance(paste, HttpResponse):
        return paste
    upload = request.FILES.get("file")
    if upload is None:
        flash.error(request, _("Choose a file to attach."))
    else:
        try:
            # An encrypted paste's page sends the name sealed (pastes/static/pastes/e2e_attachments.js).
            filename = request.POST.get("filename") or None
            attachment = attachments.attachment_add(paste=paste, upload=upload, filename=filename)
        except PastesError as error:
            flash.error(request, page_message(error))
        else:
            if paste.encrypted:
                flash.success(request, _("Attached the file, encrypted."))
            else:
                flash.success(request, _("Attached “%(filename)s”.") % {"filename": attachment.filename})
    return redirect("pastes:paste-page", paste_id=paste.id)


@signed_in
@require_POST
def detach(request: HttpRequest, paste_id: str, attachment_id: str) -> HttpResponse:
    paste = _own_paste(request, paste_id)
    if isinstance(paste, HttpResponse):
        return paste
    try:
        attachment = attachments.attachment_get(paste=paste, attachment_id=attachment_id)
    except PastesError as error:
        flash.error(request, page_message(error))
    else:
        attachments.attachment_delete(attachment=attachment)
        flash.success(request, _("Removed “%(filename)s”.") % {"filename": attachment.filename})
    return redirect("pastes:paste-page", paste_id=paste.id)
