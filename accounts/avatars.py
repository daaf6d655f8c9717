"""Uploaded avatars: checked as images, re-encoded small, stored, and served by a view.

An upload is opened with Pillow, its size in pixels checked before any pixel is decoded (a
small compressed file can unpack to gigabytes), decoded, turned upright, shrunk to at most
AVATAR_SIZE and encoded again as PNG, JPEG or WebP. Nothing of the uploaded bytes is kept, so
an HTML page, a script or an SVG dressed as an image, or metadata (EXIF positions), never
reaches a reader. The file goes to Django's default storage (MEDIA_ROOT) and is answered by
`serve`, with its own content type, nosniff and a sandboxing CSP: no web server maps the
media directory, and whitenoise serves static files only.
"""

import hashlib
import io
import warnings
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.http import FileResponse, Http404, HttpRequest
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_safe
from PIL import Image, ImageOps, UnidentifiedImageError

from accounts.models import Avatar

AVATAR_SIZE = (256, 256)
# Decoding is refused past this many pixels (Pillow's own bomb limit is ~89 million, warned
# at and refused at twice that): a 4096 by 4096 photo is plenty for a 256-pixel avatar.
MAX_PIXELS = 4096 * 4096
# Pillow format → (content type, extension). Anything else is refused, SVG included.
FORMATS = {"PNG": ("image/png", "png"), "JPEG": ("image/jpeg", "jpg"), "WEBP": ("image/webp", "webp")}


def too_big_message() -> str:
    return gettext("The image is too big: at most {kib} KiB.").format(kib=settings.ACCOUNTS_AVATAR_MAX_BYTES // 1024)


class InvalidAvatar(ValueError):
    """The upload cannot be an avatar; the message says why, for the form."""


@dataclass(frozen=True)
class EncodedAvatar:
    data: bytes
    content_type: str
    extension: str


def encode(upload) -> EncodedAvatar:
    """Check the uploaded file and return it re-encoded, at most AVATAR_SIZE; InvalidAvatar if it cannot be."""
    if upload.size > settings.ACCOUNTS_AVATAR_MAX_BYTES:
        raise InvalidAvatar(too_big_message())
    try:
        with warnings.catch_warnings():
            # Pillow only warns below twice its limit; every bomb is refused here.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(upload, formats=list(FORMATS)) as image:
                if image.width * image.height > MAX_PIXELS:
                    raise InvalidAvatar(gettext("The image has too many pixels: at most 4096 by 4096."))
                image_format = image.format
                image.load()
                image = ImageOps.exif_transpose(image)
                image.thumbnail(AVATAR_SIZE)
                return _save(image, image_format)
    except (UnidentifiedImageError, Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        raise InvalidAvatar(gettext("This is not a PNG, JPEG or WebP image.")) from error
    except (OSError, SyntaxError, ValueError) as error:
        if isinstance(error, InvalidAvatar):
            raise
        # Truncated or corrupt data: Pillow's decoders raise these.
        raise InvalidAvatar(gettext("The image could not be read: it is damaged or incomplete.")) from error


def _save(image: Image.Image, image_format: str) -> EncodedAvatar:
    content_type, extension = FORMATS[image_format]
    output = io.BytesIO()
    if image_format == "JPEG":
        image.convert("RGB").save(output, "JPEG", quality=85, optimize=True)
    else:
        keep = "RGBA" if image.mode in ("RGBA", "LA", "P", "PA") else "RGB"
        image.convert(keep).save(output, image_format, **({"optimize": True} if image_format == "PNG" else {}))
    return EncodedAvatar(output.getvalue(), content_type, extension)


def url_of(request: HttpRequest, avatar: Avatar) -> str:
    return request.build_absolute_uri(reverse("accounts:avatar", kwargs={"name": avatar.name.rsplit("/", 1)[-1]}))


def write_file(user: AbstractBaseUser, encoded: EncodedAvatar) -> str:
    """Save the encoded image in the default storage; its storage name.

    Before the transaction that points the user at it: the caller deletes it again if that fails
    (accounts/profile.py), so no file is left without its row.
    """
    digest = hashlib.sha256(encoded.data).hexdigest()[:20]
    return default_storage.save(f"avatars/{user.pk}-{digest}.{encoded.extension}", ContentFile(encoded.data))


def attach(user: AbstractBaseUser, name: str, encoded: EncodedAvatar) -> Avatar:
    """Make the stored file the user's avatar (in the caller's transaction); the old file goes once it commits."""
    detach(user, keep=name)
    return Avatar.objects.create(user=user, name=name, content_type=encoded.content_type, size=len(encoded.data))


def detach(user: AbstractBaseUser, *, keep: str = "") -> None:
    """Drop the user's uploaded avatar, if any: the row now, the file once the transaction commits."""
    old = Avatar.objects.select_for_update().filter(user=user).first()
    if old is None:
        return
    old.delete()
    if old.name != keep:
        transaction.on_commit(lambda: default_storage.delete(old.name))


@require_safe
def serve(request: HttpRequest, name: str) -> FileResponse:
    """An uploaded avatar, by the name in its URL: its stored type, never sniffed, never run as a page."""
    avatar = Avatar.objects.filter(name=f"avatars/{name}").first()
    if avatar is None:
        raise Http404("No such avatar.")
    try:
        stored = default_storage.open(avatar.name, "rb")
    except FileNotFoundError:
        raise Http404("No such avatar.") from None
    response = FileResponse(stored, content_type=avatar.content_type)
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    response["Content-Disposition"] = f'inline; filename="avatar.{name.rsplit(".", 1)[-1]}"'
    # The name changes with every upload, so a copy can be kept long; public, like the user object.
    response["Cache-Control"] = "public, max-age=31536000, immutable"
    response["Cross-Origin-Resource-Policy"] = "cross-origin"
    return response
