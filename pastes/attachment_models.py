"""A file attached to a paste: its row here, its bytes in the "pastes_attachments" storage.

Imported by pastes.models, so that Django registers it with the app. The bytes live under
`storage_name`, which never contains the uploader's filename: a name is only shown, and sent in
Content-Disposition, never used as a path.
"""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.db.models.lookups import Exact
from django.urls import reverse
from django.utils import timezone

ATTACHMENT_ID_LENGTH = 16
FILENAME_MAX_LENGTH = 255
# What the server may serve an attachment as: raster images it recognised by their bytes (shown
# inline on the page), PDFs, zip archives, and everything else as opaque bytes. Never the client's
# word, never text/html or image/svg+xml.
INLINE_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
SERVED_TYPES = (*INLINE_IMAGE_TYPES, "application/pdf", "application/zip", "application/octet-stream")


def generate_attachment_id() -> str:
    return secrets.token_urlsafe(12)  # 16 characters of [A-Za-z0-9_-]


class Attachment(models.Model):
    id = models.CharField(primary_key=True, max_length=ATTACHMENT_ID_LENGTH, default=generate_attachment_id)
    paste = models.ForeignKey("pastes.Paste", on_delete=models.CASCADE, related_name="attachments")
    # The paste's owner, kept here so that the quota sums one user's bytes from an index alone.
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="paste_attachments")
    filename = models.CharField(max_length=FILENAME_MAX_LENGTH)
    size = models.PositiveBigIntegerField(help_text="Bytes as stored (ciphertext for an encrypted paste).")
    content_type = models.CharField(max_length=50, help_text="Recognised from the bytes, never from the upload.")
    storage_name = models.CharField(max_length=255, unique=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(Exact(Length("id"), ATTACHMENT_ID_LENGTH)), name="pastes_attachment_id_length"
            ),
            models.CheckConstraint(
                condition=~Q(filename="")
                & ~Q(filename__contains="/")
                & ~Q(filename__contains="\\")
                & ~Q(filename__in=[".", ".."]),
                name="pastes_attachment_filename_is_a_name",
            ),
            models.CheckConstraint(
                condition=Q(content_type__in=SERVED_TYPES), name="pastes_attachment_content_type_served"
            ),
        ]
        indexes = [models.Index(fields=["owner", "size"], name="pastes_attachment_owner_size")]

    def __str__(self) -> str:
        return f"{self.filename} ({self.id}) on {self.paste_id}"

    def get_absolute_url(self) -> str:
        return reverse("pastes:attachment", kwargs={"paste_id": self.paste_id, "attachment_id": self.id})

    @property
    def is_inline_image(self) -> bool:
        return self.content_type in INLINE_IMAGE_TYPES
