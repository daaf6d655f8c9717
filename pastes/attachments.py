"""Attachments: checking an upload, storing its bytes, the quota, and dropping the bytes with the row.

- **Storage**: Django's storage API, the "pastes_attachments" alias of STORAGES (the filesystem by
  default, S3-compatible object storage with PASTES_ATTACHMENT_STORAGE=s3). Stored names are
  `<paste id>/<attachment id>`: the uploader's filename is shown and sent in Content-Disposition,
  never used as a path.
- **Type**: recognised from the first bytes (PNG, JPEG, GIF and WebP, checked again by Pillow;
  PDF; zip), else application/octet-stream. The client's Content-Type is never served; one that
  claims an image or a PDF the bytes are not is refused (400), so an HTML page or an SVG with a
  script sent as "image/svg+xml" or "image/png" is never shown as an image. An encrypted paste's
  attachments are ciphertext and always application/octet-stream.
- **No orphans**: the bytes are written first, then the row in a transaction that locks the owner's
  PasteProfile (so parallel uploads cannot both fit in the last free bytes); if that fails, the bytes
  are deleted before the error is answered. A deleted row (the attachment, its paste deleted, burned
  or expired, its owner deleted) deletes its bytes once the transaction commits (the post_delete
  receiver below), whichever way the paste went.
- **Zip bombs**: an attachment is never unpacked or decoded on the server (Pillow reads an image's
  header only), so a zip bomb costs its compressed size and is served as the bytes it is.
"""

import logging
import re

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.storage import Storage, storages
from django.core.files.uploadedfile import UploadedFile
from django.db import models, transaction
from django.db.models import F
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.utils import timezone
from django.utils.translation import gettext_noop
from PIL import Image, UnidentifiedImageError

from pastes.attachment_models import FILENAME_MAX_LENGTH, Attachment, generate_attachment_id
from pastes.encryption import is_envelope
from pastes.errors import PasteNotFound, PastesError, PayloadTooLarge
from pastes.models import Paste, PasteProfile

logger = logging.getLogger(__name__)

STORAGE_ALIAS = "pastes_attachments"
SNIFF_BYTES = 16
# Content types a client may claim only when the bytes bear them out.
CHECKED_CLAIMS = ("image/", "application/pdf")
PILLOW_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


def attachment_storage() -> Storage:
    return storages[STORAGE_ALIAS]


class InvalidAttachment(PastesError):
    status = 400


# The server never learns what an encrypted paste holds: its attachments' names are sealed too.
SEALED_NAME_MESSAGE = (
    "An encrypted paste's attachments have sealed names: filename must be the envelope of the name under "
    'the paste\'s key ({"v": 1, "alg": "AES-GCM-256", "iv": …, "ct": …}, as the content).'
)


class AttachmentTooLarge(PayloadTooLarge):
    def __init__(self) -> None:
        limit = settings.PASTES_ATTACHMENT_MAX_BYTES
        super().__init__(f"The file is too large: an attachment may hold at most {limit} bytes.")


class AttachmentQuotaExceeded(PayloadTooLarge):
    def __init__(self, *, limit: int, needed: int) -> None:
        self.limit, self.needed = limit, needed
        super().__init__(
            f"Attachment quota exceeded: your attachments may hold at most {limit} bytes in total, "
            f"and this file would bring them to {needed}."
        )


class AttachmentNotFound(PastesError):
    status = 404
    message = gettext_noop("Attachment not found.")


class BurnAfterReadAttachment(PastesError):
    status = 403
    message = gettext_noop(
        "This paste is burned after reading: its attachments are served to its owner only, "
        "and deleted with it when it is read."
    )


# --- Checking an upload -------------------------------------------------------------------------


# Control characters (Cc: NUL, newlines, escapes) and the invisible formatting ones (Cf) of the Basic
# Multilingual Plane, such as the right-to-left override that makes "gpj.exe" read as "exe.jpg", and
# lone surrogates; a regular-expression class, shared with the OpenAPI schema's pattern.
FORBIDDEN_FILENAME_CHARACTERS = (
    r"\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e"
    r"\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufeff\ufff9-\ufffb"
)
_FORBIDDEN_FILENAME_CHARACTER = re.compile(f"[{FORBIDDEN_FILENAME_CHARACTERS}]")


def check_filename(name: str) -> str:
    """The name to show and send in Content-Disposition; InvalidAttachment unless it is a plain file name."""
    name = name.strip()
    if not name:
        raise InvalidAttachment(gettext_noop("filename must not be empty."))
    if len(name) > FILENAME_MAX_LENGTH:
        raise InvalidAttachment(f"filename must be at most {FILENAME_MAX_LENGTH} characters long.")
    if "/" in name or "\\" in name:
        raise InvalidAttachment(gettext_noop("filename must be a name, without / or \\ (path separators)."))
    if name in (".", "..") or name.startswith(".."):
        raise InvalidAttachment(gettext_noop("filename must not be . or .. or start with ..."))
    if _FORBIDDEN_FILENAME_CHARACTER.search(name):
        raise InvalidAttachment(gettext_noop("filename must not contain control or invisible formatting characters."))
    return name


def sniff(head: bytes) -> str:
    """The type the first bytes of a file show: one of pastes.attachment_models.SERVED_TYPES."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    if head.startswith(b"%PDF-"):
        return "application/pdf"
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "application/zip"
    return "application/octet-stream"


def _is_image(upload: UploadedFile, claimed: str) -> bool:
    """Whether Pillow reads an image header of the sniffed format (no pixel is decoded)."""
    formats = [name for name, content_type in PILLOW_FORMATS.items() if content_type == claimed]
    try:
        upload.seek(0)
        with Image.open(upload, formats=formats) as image:
            return image.width > 0 and image.height > 0
    except (UnidentifiedImageError, Image.DecompressionBombError, Exception):
        # Any failure to read the header means "not an image we preview": Pillow's parsers raise
        # OSError, SyntaxError, ValueError, struct.error and more on hostile input, and none of it
        # may become a 500. The bytes are then kept as an opaque download.
        return False
    finally:
        upload.seek(0)


def content_type_of(upload: UploadedFile, *, encrypted: bool) -> str:
    """The type to serve the upload as; InvalidAttachment if its declared type claims what it is not."""
    if encrypted:
        return "application/octet-stream"  # ciphertext, whatever the plaintext was
    upload.seek(0)
    content_type = sniff(upload.read(SNIFF_BYTES))
    upload.seek(0)
    if content_type.startswith("image/") and not _is_image(upload, content_type):
        content_type = "application/octet-stream"
    declared = (upload.content_type or "").split(";")[0].strip().lower()
    if declared.startswith(CHECKED_CLAIMS) and declared != content_type:
        raise InvalidAttachment(
            f"The file is sent as {declared}, but its bytes are not: images must be PNG, JPEG, GIF or WebP "
            "(never SVG) and PDFs must start with %PDF-. Send it as application/octet-stream to attach it "
            "as a plain download."
        )
    return content_type


# --- Writing and deleting -----------------------------------------------------------------------


def _used_bytes(owner: AbstractBaseUser) -> int:
    return Attachment.objects.filter(owner=owner).aggregate(total=models.Sum("size"))["total"] or 0


def used_bytes(owner: AbstractBaseUser) -> int:
    """Bytes the user's attachments hold (the user object's `attachment_bytes`)."""
    return _used_bytes(owner)


def _check_quota(profile: PasteProfile, owner: AbstractBaseUser, size: int) -> None:
    needed = _used_bytes(owner) + size
    if needed > profile.max_attachment_bytes:
        raise AttachmentQuotaExceeded(limit=profile.max_attachment_bytes, needed=needed)


def attachment_add(*, paste: Paste, upload: UploadedFile, filename: str | None = None) -> Attachment:
    """Store `upload` as an attachment of the owner's `paste`; the new row, or an error and nothing stored."""
    from pastes.services import _lock_profile  # the lock every write of the owner's quota takes

    if upload.size > settings.PASTES_ATTACHMENT_MAX_BYTES:
        raise AttachmentTooLarge()
    if upload.size == 0:
        raise InvalidAttachment(gettext_noop("file must not be empty."))
    name = check_filename(filename if filename is not None else (upload.name or ""))
    if paste.encrypted and not is_envelope(name):
        raise InvalidAttachment(SEALED_NAME_MESSAGE)
    content_type = content_type_of(upload, encrypted=paste.encrypted)
    owner = paste.owner
    # A first look without the lock, so a file that cannot fit is refused before it is stored.
    _check_quota(PasteProfile.for_user(owner), owner, upload.size)

    attachment = Attachment(
        id=generate_attachment_id(),
        paste=paste,
        owner=owner,
        filename=name,
        size=upload.size,
        content_type=content_type,
    )
    storage = attachment_storage()
    upload.seek(0)
    attachment.storage_name = storage.save(f"{paste.id}/{attachment.id}", upload)
    try:
        with transaction.atomic():
            profile = _lock_profile(owner)
            # The paste may have been deleted, burned or expired while the bytes were written.
            if not Paste.objects.select_for_update().unexpired(timezone.now()).filter(pk=paste.pk).exists():
                raise PasteNotFound()
            _check_quota(profile, owner, upload.size)
            attachment.full_clean(exclude=["paste", "owner", "storage_name"], validate_unique=False)
            attachment.save(force_insert=True)
            Paste.objects.filter(pk=paste.pk).update(attachment_count=F("attachment_count") + 1)
    except BaseException:
        storage.delete(attachment.storage_name)
        raise
    return attachment


def attachment_delete(*, attachment: Attachment) -> None:
    with transaction.atomic():
        # Counted down only by the request that deleted the row: of two deletes of one attachment
        # at once, the other finds it gone (404, as it would a moment later).
        deleted, _ = Attachment.objects.filter(pk=attachment.pk).delete()  # the bytes follow (below)
        if not deleted:
            raise AttachmentNotFound()
        Paste.objects.filter(pk=attachment.paste_id).update(attachment_count=F("attachment_count") - 1)


@receiver(post_delete, sender=Attachment, dispatch_uid="pastes.attachments.delete_bytes")
def _delete_bytes(sender: type, instance: Attachment, **kwargs: object) -> None:
    """Delete an attachment's bytes once the deletion of its row commits, however the row went.

    Deleting a paste (or a user) cascades here too, so delete, burn after read, expiry and
    purge_expired_pastes all remove the stored bytes. A storage failure is logged, not raised:
    the row is already gone, and the bytes are unreachable without it.
    """
    name = instance.storage_name

    def delete() -> None:
        try:
            attachment_storage().delete(name)
        except Exception:
            logger.exception("Could not delete the stored bytes of attachment %s (%s)", instance.pk, name)

    transaction.on_commit(delete, robust=True)


# --- Reading ------------------------------------------------------------------------------------


def attachment_get(*, paste: Paste, attachment_id: str) -> Attachment:
    # PostgreSQL refuses NUL bytes in a query, and no id holds one.
    if "\x00" in attachment_id or len(attachment_id) > 64:
        raise AttachmentNotFound()
    attachment = paste.attachments.filter(pk=attachment_id).first()
    if attachment is None:
        raise AttachmentNotFound()
    return attachment


def attachment_for_reader(*, paste: Paste, attachment_id: str, reader: AbstractBaseUser | None) -> Attachment:
    """The attachment, for a reader who may read `paste` (visibility and password already checked).

    Downloading an attachment counts no view. A burn-after-read paste is read once, on its page or
    through the API, and its attachments go with it: before that, only its owner gets them.
    """
    if paste.burn_after_read and not paste.is_owned_by(reader):
        raise BurnAfterReadAttachment()
    return attachment_get(paste=paste, attachment_id=attachment_id)


def serialize(attachment: Attachment) -> dict:
    return {
        "id": attachment.id,
        "filename": attachment.filename,
        "size": attachment.size,
        "content_type": attachment.content_type,
        "url": attachment.get_absolute_url(),
    }


def attachments_of(paste: Paste) -> list[dict]:
    """A paste read's `attachments` (prefetched ones are used as they are); no query when it has none."""
    if not paste.attachment_count:
        return []
    return [serialize(attachment) for attachment in paste.attachments.all()]
