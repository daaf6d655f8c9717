"""The API's errors as B's pages say them, in the reader's language.

The JSON API keeps its English messages word for word (IdefaSoft's clients match them), so the
errors themselves stay English; a page that shows one (a form, a flash message, an error page)
passes it through `page_message`. A fixed message is its own msgid (marked where it is defined
with gettext_noop); a message built from numbers is rebuilt here from the error's values.
"""

from django.conf import settings
from django.forms import Field
from django.utils import translation
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from pastes.attachments import AttachmentQuotaExceeded, AttachmentTooLarge, InvalidAttachment
from pastes.comments import BadComment, DiscussionFull
from pastes.errors import (
    NotAnEnvelope,
    PastesError,
    PayloadTooLarge,
    QuotaExceeded,
    TooManyPasswordAttempts,
    TooManyPasswordChecks,
)
from pastes.files import MAX_FILES
from pastes.revisions import RevisionNotFound


def _number(value: int) -> str:
    return number_format(value, force_grouping=True)


def _english() -> bool:
    return translation.get_language().startswith("en")


def page_message(error: PastesError) -> str:
    if _english():
        return error.message  # the API's own wording, as the pages always said it
    if isinstance(error, TooManyPasswordAttempts | TooManyPasswordChecks):
        return ngettext(
            "Too many passwords tried from your address: try again in %(seconds)s second.",
            "Too many passwords tried from your address: try again in %(seconds)s seconds.",
            error.retry_after,
        ) % {"seconds": _number(error.retry_after)}
    if isinstance(error, QuotaExceeded):
        return _(
            "Paste quota exceeded: your pastes may hold at most %(limit)s characters in total, "
            "and this change would bring them to %(needed)s."
        ) % {"limit": _number(error.limit), "needed": _number(error.needed)}
    if isinstance(error, AttachmentQuotaExceeded):
        return _(
            "Attachment quota exceeded: your attachments may hold at most %(limit)s bytes in total, "
            "and this file would bring them to %(needed)s."
        ) % {"limit": _number(error.limit), "needed": _number(error.needed)}
    if isinstance(error, AttachmentTooLarge):
        limit = _number(settings.PASTES_ATTACHMENT_MAX_BYTES)
        return _("The file is too large: an attachment may hold at most %(limit)s bytes.") % {"limit": limit}
    if isinstance(error, RevisionNotFound):
        return _("This paste has no such revision.")
    if isinstance(error, DiscussionFull):
        return _("This discussion is full: it takes no more comments.")
    message = _(error.message)
    if message == error.message:
        # A message built from the request (a name, an id) has no msgid: say what kind of problem it is.
        if isinstance(error, InvalidAttachment):
            return _("This file cannot be attached: its name must be a plain file name, without / or \\.")
        if isinstance(error, BadComment):
            return _("This comment cannot be posted here: reload the page and try again.")
        if isinstance(error, NotAnEnvelope):
            return _("The text was not encrypted by your browser: end-to-end encryption needs JavaScript.")
        if isinstance(error, PayloadTooLarge):
            limit = _number(settings.PASTES_MAX_BODY_BYTES)
            return _("The files are too large: together they may hold at most %(limit)s bytes.") % {"limit": limit}
    return message


def detail_message(detail: str) -> str:
    """A serializer's error (DRF's ErrorDetail, with its code) on a page form."""
    code = getattr(detail, "code", None)
    if _english():
        return str(detail)
    if code in ("required", "blank", "null"):
        return Field.default_error_messages["required"]  # Django's own wording, translated by Django
    if code == "invalid_choice":
        return _("Choose one of the values offered.")
    # The files' own codes (pastes.files.FilesField), on the form's file slots.
    if code == "duplicate":
        return _("Two files have the same name: each file needs its own.")
    if code == "filename":
        return _("A file name is not accepted: it must be a plain name, without / or \\.")
    if code == "too_many":
        return _("A paste holds at most %(count)s files.") % {"count": MAX_FILES}
    if code in ("syntax", "syntax_length"):
        return _("Unknown syntax: choose one from the list.")
    return _(str(detail))  # DRF's own messages (max_length, …) come translated by DRF


def first_detail(detail: object) -> object:
    """The first error of a DRF error detail (string, list or dict), with its code (errors.first_message's twin)."""
    if isinstance(detail, dict):
        return first_detail(next(iter(detail.values()), ""))
    if isinstance(detail, list):
        return first_detail(detail[0]) if detail else ""
    return detail
