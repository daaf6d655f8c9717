"""Attachment endpoints of interface B: upload and delete (the owner), download (whoever may read the paste).

Downloads are streamed through Django from the storage, on the filesystem and on S3 alike,
rather than redirected to a presigned S3 URL: every download is then checked like a read of the
paste (private, password, burn after read, expiry, deletion: a presigned URL stays valid for its
lifetime after any of them), and the answer always carries our headers (Content-Disposition:
attachment, nosniff, a sandboxing CSP), which S3-compatible servers set unevenly or not at all.
The cost is that a worker carries the bytes, at most PASTES_ATTACHMENT_MAX_BYTES per download.
"""

from django.http import FileResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from pastes import attachments, schema, services
from pastes.attachments import FORBIDDEN_FILENAME_CHARACTERS, InvalidAttachment
from pastes.authentication import PasteKeyAuthentication
from pastes.schema import _error
from pastes.serializers import AttachmentSerializer
from pastes.throttling import PastePasswordThrottle
from pastes.views import NO_STORE, PASSWORD_HEADER, PasteAPIView

# What a served attachment may do in a browser that opens it anyway: nothing. `sandbox` gives the
# document an opaque origin (no cookies, no scripts, no forms); nosniff stops a browser from
# guessing HTML out of bytes sent as something else.
ATTACHMENT_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"


# A good filename as the schema says it; pastes.attachments.check_filename checks the same.
FILENAME_PATTERN = rf"^$|^(?!\.\.)(?!\.$)(?!\s)[^/\\{FORBIDDEN_FILENAME_CHARACTERS}]+$"
UPLOAD_SCHEMA = {
    "type": "object",
    "properties": {
        "file": {"type": "string", "format": "binary", "minLength": 1},
        "filename": {"type": "string", "maxLength": 255, "pattern": FILENAME_PATTERN},
    },
    "required": ["file"],
    "additionalProperties": False,
}


def _upload_from(request: Request) -> tuple[object, str | None]:
    content_type = request.content_type.split(";")[0].strip().lower()
    if content_type != "multipart/form-data":
        raise InvalidAttachment("Send the file as multipart/form-data, in a part named file.")
    if unknown := sorted(set(request.data) - {"file", "filename"}):
        raise InvalidAttachment(f"Unknown field(s): {', '.join(unknown)}. Allowed fields: file, filename.")
    upload = request.FILES.get("file")
    if upload is None:
        raise InvalidAttachment("file is required: a multipart part named file, with a filename.")
    if len(request.FILES.getlist("file")) > 1:
        raise InvalidAttachment("Send one file per request.")
    filename = request.data.get("filename")
    if filename is not None and not isinstance(filename, str):
        raise InvalidAttachment("filename must be a string.")
    return upload, filename or None  # empty: the file part's own name


class AttachmentListView(PasteAPIView):
    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser]

    @extend_schema(
        operation_id="attachment_create",
        summary="Attach a file to a paste (owner only)",
        description="Multipart form: `file` (the bytes, with a filename) and optionally `filename` "
        "(overrides the part's name; empty keeps it). The file is at most PASTES_ATTACHMENT_MAX_BYTES (413) "
        "and must fit the "
        "owner's attachment quota (413). Its type is recognised from its bytes; a declared image or PDF "
        "type that the bytes do not bear out is a 400. Filenames with / or \\, control characters or "
        "starting with .. are a 400.",
        request={"multipart/form-data": UPLOAD_SCHEMA},
        responses={
            201: AttachmentSerializer,
            400: _error("No file part, an empty file, a bad filename, or a declared type the bytes do not bear out."),
            401: schema.UNAUTHORIZED,
            403: schema.NOT_OWNER_OR_READ_ONLY,
            404: schema.NOT_FOUND,
            413: _error("Over PASTES_ATTACHMENT_MAX_BYTES, or over the owner's max_attachment_bytes."),
            429: schema.RATE_LIMITED,
        },
        tags=schema.TAGS,
    )
    def post(self, request: Request, paste_id: str) -> Response:
        paste = services.paste_get_for_owner(paste_id=paste_id, user=request.user)
        upload, filename = _upload_from(request)
        attachment = attachments.attachment_add(paste=paste, upload=upload, filename=filename)
        return Response(attachments.serialize(attachment), status=status.HTTP_201_CREATED)


class AttachmentDetailView(PasteAPIView):
    # The site's session too, so that the paste page's <img> and links reach a private paste's files.
    authentication_classes = [PasteKeyAuthentication, SessionAuthentication]

    def get_permissions(self) -> list:
        if self.request.method == "DELETE":
            return [IsAuthenticated(), *super().get_permissions()]
        return super().get_permissions()

    @extend_schema(
        operation_id="attachment_download",
        summary="Download an attachment",
        description="The bytes, with Content-Disposition: attachment, the type recognised at upload, "
        "X-Content-Type-Options: nosniff and a sandboxing Content-Security-Policy. Same authorization as "
        "reading the paste (X-Paste-Password for a password-protected one); counts no view. A "
        "burn-after-read paste's attachments are served to its owner only (403).",
        parameters=[schema.PASSWORD_PARAMETER],
        responses={
            (200, "application/octet-stream"): OpenApiResponse(description="The file's bytes."),
            **schema.PASSWORD_ERRORS,
            404: _error("No such paste (as for reading it), or no such attachment on it."),
            429: schema.RATE_LIMITED,
        },
        tags=schema.TAGS,
    )
    def get(self, request: Request, paste_id: str, attachment_id: str) -> FileResponse:
        paste = services.paste_get_visible(paste_id=paste_id, user=self.reader)
        self._check_password(request, paste)
        attachment = attachments.attachment_for_reader(paste=paste, attachment_id=attachment_id, reader=self.reader)
        response = FileResponse(
            attachments.attachment_storage().open(attachment.storage_name, "rb"),
            as_attachment=True,
            filename=attachment.filename,
            content_type=attachment.content_type,
        )
        response["Content-Length"] = str(attachment.size)
        response["X-Content-Type-Options"] = "nosniff"
        response["Content-Security-Policy"] = ATTACHMENT_CSP
        # Not embeddable by other sites (no hotlinking of a private paste's image through a reader's cookies).
        response["Cross-Origin-Resource-Policy"] = "same-origin"
        response["Cache-Control"] = NO_STORE["Cache-Control"]
        return response

    def _check_password(self, request: Request, paste) -> None:
        from pastes.pages import _is_unlocked  # the page's session remembers an unlocked paste

        if _is_unlocked(request._request, paste):
            return
        password = request.headers.get(PASSWORD_HEADER)
        if password is None:
            services.check_paste_password(paste=paste, reader=self.reader, password=None)
            return
        throttle = PastePasswordThrottle(paste.id)
        throttle.attempt(request)
        services.check_paste_password(paste=paste, reader=self.reader, password=password)
        throttle.release(request)

    @extend_schema(
        operation_id="attachment_delete",
        summary="Delete an attachment (owner only)",
        responses={
            204: OpenApiResponse(description="Deleted, and its bytes with it."),
            401: schema.UNAUTHORIZED,
            403: schema.NOT_OWNER_OR_READ_ONLY,
            404: _error("No such paste (as for reading it), or no such attachment on it."),
            429: schema.RATE_LIMITED,
        },
        tags=schema.TAGS,
    )
    def delete(self, request: Request, paste_id: str, attachment_id: str) -> Response:
        paste = services.paste_get_for_owner(paste_id=paste_id, user=request.user)
        attachment = attachments.attachment_get(paste=paste, attachment_id=attachment_id)
        attachments.attachment_delete(attachment=attachment)
        return Response(status=status.HTTP_204_NO_CONTENT)
