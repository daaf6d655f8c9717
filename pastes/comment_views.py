"""The discussion API: GET/POST /paste/@{id}/comments, DELETE /paste/@{id}/comments/{comment_id}.

Reading and posting need what reading the paste needs (a private paste is its owner's, a
password paste wants X-Paste-Password), and neither counts a view. Posting takes a nickname
or the key's user; deleting needs a key: the paste's owner deletes any comment, an author
their own. Posts are limited per client address (PASTES_COMMENT_RATE_LIMIT).
"""

from collections.abc import Mapping
from datetime import UTC
from typing import Any, NoReturn

from django.conf import settings
from django.utils.translation import gettext_noop
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings

from common.throttling import Throttle, per_period
from pastes import comments, schema, services
from pastes.models import COMMENT_MAX_CHARS, NICKNAME_MAX_LENGTH, Comment, Paste
from pastes.serializers import NamedErrorsMixin, StrictCharField
from pastes.throttling import PastePasswordThrottle
from pastes.views import NO_STORE, PASSWORD_HEADER, PasteAPIView

MAX_COMMENT_ID = 2**63 - 1


class CommentThrottle(Throttle):
    """Comments posted from one address, on any paste, through the API or the page."""

    scope = "pastes:comments"
    limit_setting = "PASTES_COMMENT_RATE_LIMIT"
    period_setting = "PASTES_COMMENT_RATE_PERIOD"

    def get_key(self, request: Request) -> str | None:
        return f"ip:{self.get_ident(request)}" if request.method == "POST" else None

    def denied_message(self, limit: int, period: int) -> str:
        return f"Too many comments from your address: at most {limit} {per_period(period)}."


class StrictIntegerField(NamedErrorsMixin, serializers.IntegerField):
    default_error_messages = {"invalid": "{field} must be a whole number (a comment id) or null."}

    def to_internal_value(self, data: object) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class CommentInputSerializer(serializers.Serializer):
    default_error_messages = {
        "invalid": "The request body must be a JSON object.",
        "unknown_fields": "Unknown field(s): {unknown}. Allowed fields: {allowed}.",
    }

    text = StrictCharField(
        max_length=COMMENT_MAX_CHARS,
        trim_whitespace=False,
        help_text=f"The comment (at most {COMMENT_MAX_CHARS} characters); under an encrypted paste, the envelope "
        "of the text encrypted with the paste's key.",
    )
    nickname = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=NICKNAME_MAX_LENGTH,
        help_text="Shown when the comment is anonymous (no key); ignored for a key's user, shown by username.",
    )
    parent_id = StrictIntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=MAX_COMMENT_ID,
        help_text="The top-level comment this one replies to.",
    )

    def validate_text(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError(gettext_noop("text must not be empty."))  # its page translates it
        return value

    def _fail_body(self, key: str, **kwargs: Any) -> NoReturn:
        message = self.error_messages[key].format(**kwargs)
        raise serializers.ValidationError({api_settings.NON_FIELD_ERRORS_KEY: [message]}, code=key)

    def run_validation(self, data: object = serializers.empty) -> dict:
        if data is None:
            self._fail_body("invalid")
        return super().run_validation(data)

    def to_internal_value(self, data: object) -> dict:
        if not isinstance(data, Mapping):
            self._fail_body("invalid")
        if unknown := sorted(set(data) - set(self.fields)):
            self._fail_body("unknown_fields", unknown=", ".join(map(str, unknown)), allowed=", ".join(self.fields))
        return super().to_internal_value(data)


class CommentSerializer(serializers.Serializer):
    """A comment, as the discussion API answers it (documentation; comment_object builds it)."""

    id = serializers.IntegerField()
    parent_id = serializers.IntegerField(allow_null=True, help_text="The top-level comment it replies to, or null.")
    author = serializers.CharField(allow_null=True, help_text="The signed-in author's username, or null.")
    nickname = serializers.CharField(allow_null=True, help_text="An anonymous author's nickname, or null.")
    text = serializers.CharField(help_text="The text; under an encrypted paste, its envelope.")
    encrypted = serializers.BooleanField()
    created_at = serializers.CharField(help_text="ISO 8601, UTC, with microseconds.")
    replies = serializers.ListField(
        child=serializers.DictField(), required=False, help_text="Top-level comments only: their replies, oldest first."
    )


class DiscussionSerializer(serializers.Serializer):
    comments = CommentSerializer(many=True, help_text="Top-level comments, oldest first.")
    count = serializers.IntegerField(help_text="Comments and replies in all.")


NO_DISCUSSION_DOC = " Also 404 when the paste has no discussion (`discussion` false)."
COMMENT_ERRORS = {
    **schema.PASSWORD_ERRORS,
    404: schema._error(schema.NOT_FOUND.description + NO_DISCUSSION_DOC),
    429: schema.RATE_LIMITED,
}


def comment_object(comment: Comment, *, with_replies: bool = True) -> dict:
    body = {
        "id": comment.pk,
        "parent_id": comment.parent_id,
        "author": comment.author.get_username() if comment.author_id is not None else None,
        "nickname": comment.nickname or None,
        "text": comment.text,
        "encrypted": comment.encrypted,
        "created_at": comment.created_at.astimezone(UTC).isoformat(timespec="microseconds"),
    }
    if with_replies and comment.parent_id is None:
        body["replies"] = [comment_object(reply) for reply in getattr(comment, "thread_replies", [])]
    return body


def readable_discussion(view: PasteAPIView, paste_id: str) -> Paste:
    """The paste if the requester may read it (password included) and it takes comments; nothing is counted."""
    request = view.request
    paste = services.paste_get_visible(paste_id=paste_id, user=view.reader)
    if paste.burn_after_read and not paste.is_owned_by(view.reader):
        raise comments.NoDiscussion()  # never both (see PasteInputSerializer), and reading it would burn it
    password = request.headers.get(PASSWORD_HEADER)
    if paste.password_protected and not paste.is_owned_by(view.reader) and password is not None:
        throttle = PastePasswordThrottle(paste.pk)
        throttle.attempt(request)
        services.check_paste_password(paste=paste, reader=view.reader, password=password)
        throttle.release(request)
    else:
        services.check_paste_password(paste=paste, reader=view.reader, password=password)
    if not paste.discussion:
        raise comments.NoDiscussion()
    return paste


class CommentListView(PasteAPIView):
    throttle_classes = [*PasteAPIView.throttle_classes, CommentThrottle]

    @extend_schema(
        summary="A paste's discussion",
        description="The comments, oldest first, each top-level one with its `replies`. Same authorization as "
        "reading the paste (X-Paste-Password for a password paste); no view is counted. 404 when the paste "
        "has no discussion.",
        parameters=[schema.PASSWORD_PARAMETER],
        responses={200: DiscussionSerializer, **COMMENT_ERRORS},
        tags=schema.TAGS,
    )
    def get(self, request: Request, paste_id: str) -> Response:
        paste = readable_discussion(self, paste_id)
        top = comments.threads(paste.pk)
        count = sum(1 + len(comment.thread_replies) for comment in top)
        return Response({"comments": [comment_object(comment) for comment in top], "count": count}, headers=NO_STORE)

    @extend_schema(
        summary="Comment on a paste",
        description="`text`, optional `nickname` (anonymous comments) and `parent_id` (a top-level comment to "
        "reply to). With a key the comment is its user's. Under an encrypted paste `text` must be an envelope. "
        f"At most {settings.PASTES_COMMENT_RATE_LIMIT} comments per address per "
        f"{settings.PASTES_COMMENT_RATE_PERIOD} s (429).",
        request=CommentInputSerializer,
        parameters=[schema.PASSWORD_PARAMETER],
        responses={
            201: CommentSerializer,
            400: schema._error(
                "Malformed JSON, a body that is not an object, an unknown field, a wrong type, empty or oversize "
                "text, a parent_id that is not a top-level comment of this paste, or a plain text under an "
                "encrypted paste."
            ),
            413: schema.TOO_LARGE,
            415: schema.UNSUPPORTED,
            **COMMENT_ERRORS,
            403: schema._error(
                schema.READ_ONLY_DOC + " (without a key, the comment is anonymous); or a wrong X-Paste-Password, "
                "or the discussion is full."
            ),
        },
        tags=schema.TAGS,
    )
    def post(self, request: Request, paste_id: str) -> Response:
        paste = readable_discussion(self, paste_id)
        serializer = CommentInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        comment = comments.comment_create(
            paste_id=paste.pk,
            author=self.reader,
            nickname=data.get("nickname", "").strip(),
            text=data["text"],
            parent_id=data.get("parent_id"),
        )
        return Response(comment_object(comment), status=status.HTTP_201_CREATED)


class CommentDetailView(PasteAPIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Delete a comment",
        description="The paste's owner deletes any comment, an author their own; a top-level comment goes with "
        "its replies. 204.",
        request=None,
        responses={
            204: OpenApiResponse(description="Deleted."),
            401: schema.UNAUTHORIZED,
            403: schema._error(schema.READ_ONLY_DOC + "; or neither the paste's owner nor the comment's author."),
            404: schema._error("No such paste or no such comment on it."),
            429: schema.RATE_LIMITED,
        },
        tags=schema.TAGS,
    )
    def delete(self, request: Request, paste_id: str, comment_id: str) -> Response:
        # Checked here rather than by an <int:> converter: a number past the database's bigint is a 404 too.
        if not comment_id.isascii() or not comment_id.isdigit() or int(comment_id) > MAX_COMMENT_ID:
            raise comments.CommentNotFound()
        comments.comment_delete(paste_id=paste_id, comment_id=int(comment_id), user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
