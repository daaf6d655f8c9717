"""API endpoints of several files and revisions (issue 47): a file's raw text, and a paste's history.

Same rules as reading the paste (visibility, password, expiry): the revisions of a paste are
read by whoever may read the paste, and neither count a view nor burn anything; the raw text of
one file is a read like /raw (counted, burning).
"""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from pastes import revisions, schema, services
from pastes.errors import PasteNotFound
from pastes.files import paste_files
from pastes.models import Paste
from pastes.serializers import PasteSerializer
from pastes.throttling import PastePasswordThrottle
from pastes.views import NO_STORE, PASSWORD_HEADER, PasteAPIView, PasteReadView

REVISION_ITEM = inline_serializer(
    "Revision",
    {
        "number": serializers.IntegerField(help_text="1 is the paste as created; one more per edit of its files."),
        "created_at": serializers.CharField(help_text="When that version was written (ISO 8601, UTC)."),
        "size": serializers.IntegerField(help_text="Characters over every file of that version."),
        "files": serializers.ListField(child=serializers.CharField(), help_text="Filenames the next edit changed."),
        "removed": serializers.BooleanField(help_text="Extension: the owner removed this revision's content."),
    },
    many=True,
)
REVISION_RULES = (
    "Whoever may read the paste may read its revisions (the same 404, 401 and 403 for private and "
    "password-protected pastes); reading them counts no view and burns nothing. A revision is the paste as "
    "it was before an edit of its files (content, filenames or syntax); the paste itself is the newest "
    "version. Burn-after-read pastes keep none. "
)


class RevisionsReadView(PasteAPIView):
    def readable(self, paste_id: str) -> Paste:
        paste = services.paste_get_visible(paste_id=paste_id, user=self.reader)
        password = self.request.headers.get(PASSWORD_HEADER)
        if password is None or not paste.password_protected:
            services.check_paste_password(paste=paste, reader=self.reader, password=password)
            return paste
        throttle = PastePasswordThrottle(paste_id)
        throttle.attempt(self.request)
        services.check_paste_password(paste=paste, reader=self.reader, password=password)
        throttle.release(self.request)
        return paste


class RevisionListView(RevisionsReadView):
    @extend_schema(
        operation_id="pastes_revisions",
        summary="List a paste's revisions",
        description=REVISION_RULES + "Oldest first, without their content.",
        parameters=[schema.PASSWORD_PARAMETER],
        responses={200: REVISION_ITEM, **schema.PASSWORD_ERRORS, 404: schema.NOT_FOUND},
        tags=schema.TAGS,
    )
    def get(self, request: Request, paste_id: str) -> Response:
        paste = self.readable(paste_id)
        rows = revisions.listing(paste)
        for row in rows:
            row["created_at"] = row["created_at"].isoformat(timespec="microseconds")
        return Response(rows, headers=NO_STORE)


class RevisionDetailView(RevisionsReadView):
    def get_permissions(self) -> list:
        if self.request.method == "DELETE":
            return [IsAuthenticated(), *super().get_permissions()]
        return super().get_permissions()

    @extend_schema(
        operation_id="pastes_revision",
        summary="Get one revision of a paste",
        description=REVISION_RULES + "The revision as a Paste object: its name, files and time (`created_at`), "
        "the paste's other fields as they are now. A removed revision is 410.",
        parameters=[schema.PASSWORD_PARAMETER],
        responses={
            200: PasteSerializer,
            **schema.PASSWORD_ERRORS,
            404: schema._error("No such paste or revision."),
            410: schema._error("The owner removed this revision's content."),
        },
        tags=schema.TAGS,
    )
    def get(self, request: Request, paste_id: str, number: int) -> Response:
        paste = self.readable(paste_id)
        revision = revisions.revision_get(paste=paste, number=number)
        return Response(PasteSerializer(revisions.as_paste(paste, revision)).data, headers=NO_STORE)

    @extend_schema(
        operation_id="pastes_revision_remove",
        summary="Remove a revision's content",
        description="The owner's key. The revision stays listed with `removed: true` and stops counting "
        "against the quota. 204; another user gets 403 for a paste they can see, 404 for one they cannot.",
        request=None,
        responses={
            204: OpenApiResponse(description="Removed."),
            401: schema.UNAUTHORIZED,
            403: schema.NOT_OWNER_OR_READ_ONLY,
            404: schema._error("No such paste or revision."),
        },
        tags=schema.TAGS,
    )
    def delete(self, request: Request, paste_id: str, number: int) -> Response:
        paste = services.paste_get_for_owner(paste_id=paste_id, user=request.user)
        revisions.revision_remove(paste=paste, number=number)
        return Response(status=status.HTTP_204_NO_CONTENT)


class FileRawView(PasteReadView):
    @extend_schema(
        operation_id="pastes_file_raw",
        summary="Get one file of a paste as plain text",
        description="File `number` (1 is the first) as text/plain; a read like /raw (counted, burning). "
        + schema.READ_RULES,
        parameters=[schema.PASSWORD_PARAMETER],
        responses={(200, "text/plain"): OpenApiTypes.STR, **schema.PASSWORD_ERRORS, 404: schema.NOT_FOUND},
        tags=schema.TAGS,
    )
    def get(self, request: Request, paste_id: str, number: int) -> HttpResponse:
        paste = self.read(paste_id)
        files = paste_files(paste)
        if not 1 <= number <= len(files):
            raise PasteNotFound(f"This paste has {len(files)} file(s): number {number} does not exist.")
        return HttpResponse(files[number - 1]["content"], content_type="text/plain; charset=utf-8", headers=NO_STORE)
