"""Paste and User objects out, strictly checked JSON in.

Input is strict on purpose: a number where a string belongs, "yes" for a boolean, or
a misspelt field name is a 400 naming the problem rather than a silent guess.
"""

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, NoReturn

from django.contrib.auth.models import AbstractBaseUser
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.settings import api_settings

from pastes.attachments import attachments_of, used_bytes
from pastes.files import FilesField, paste_files
from pastes.models import NAME_MAX_LENGTH, NAME_MIN_LENGTH, SYNTAX_MAX_LENGTH, Paste, PasteProfile, validate_syntax

NAME_LENGTH_MESSAGE = f"The name must be between {NAME_MIN_LENGTH} and {NAME_MAX_LENGTH} characters long"
PASTE_CREATED_AT_FORMAT = "%d/%m/%Y, %H:%M:%S"
EXPIRATION_LABELS = [choice.label for choice in Paste.Expiration]
EXPOSURE_VALUES = list(Paste.Exposure.values)
PASSWORD_MAX_LENGTH = 128


class NamedErrorsMixin:
    """Let error messages name their field: "{field} is required."."""

    default_error_messages = {
        "required": "{field} is required.",
        "null": "{field} may not be null.",
    }

    def fail(self, key: str, **kwargs: Any) -> NoReturn:
        kwargs.setdefault("field", self.field_name)
        super().fail(key, **kwargs)


class StrictCharField(NamedErrorsMixin, serializers.CharField):
    """A JSON string only (no numbers turned into text), storable as UTF-8."""

    default_error_messages = {
        "invalid": "{field} must be a string.",
        "blank": "{field} must not be empty.",
        "surrogates": "{field} contains an unpaired surrogate escape (\\ud800-\\udfff), which is not valid text.",
        "nul": "{field} must not contain NUL characters.",
    }

    def to_internal_value(self, data: object) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        if "\x00" in data:
            self.fail("nul")
        try:
            data.encode("utf-8")
        except UnicodeEncodeError:
            self.fail("surrogates")
        if self.max_length is not None and len(data) > self.max_length:
            # The longest string is counted as sent, before trimming, as the OpenAPI schema's maxLength says.
            self.fail("max_length", max_length=self.max_length)
        return super().to_internal_value(data)


class StrictBooleanField(NamedErrorsMixin, serializers.BooleanField):
    default_error_messages = {"invalid": "{field} must be true or false."}

    def to_internal_value(self, data: object) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class SyntaxField(StrictCharField):
    """A Pygments language name, or empty (pastes.schema lists the names in the OpenAPI schema)."""


class LabelChoiceField(StrictCharField):
    """One of a fixed list of strings; the error lists them all."""

    default_error_messages = {"invalid_choice": "{field} must be one of: {allowed}."}

    def __init__(self, *, allowed: list[str], **kwargs: Any) -> None:
        self.allowed = allowed
        super().__init__(**kwargs)

    def to_internal_value(self, data: object) -> str:
        value = super().to_internal_value(data)
        if value not in self.allowed:
            self.fail("invalid_choice", allowed=", ".join(self.allowed))
        return value


@extend_schema_field(OpenApiTypes.STR)
class UtcFormattedDateTimeField(serializers.Field):
    def __init__(self, *, fmt: str | None = None, **kwargs: Any) -> None:
        # fmt None means ISO 8601 with microseconds and an explicit +00:00 offset.
        self.fmt = fmt
        kwargs["read_only"] = True
        super().__init__(**kwargs)

    def to_representation(self, value: datetime) -> str:
        value = value.astimezone(UTC)
        return value.strftime(self.fmt) if self.fmt else value.isoformat(timespec="microseconds")


# The account's `pastes` are paged: a user may own 10⁴ pastes, each with its content.
ACCOUNT_PER_PAGE = 50
ACCOUNT_MAX_PER_PAGE = 100
# Far past any real account (10⁶ pastes at 100 a page), and small enough for any SQL OFFSET.
ACCOUNT_MAX_PAGE = 1_000_000


class AttachmentSerializer(serializers.Serializer):
    id = serializers.CharField()
    filename = serializers.CharField()
    size = serializers.IntegerField()
    content_type = serializers.CharField()
    url = serializers.CharField(help_text="Where the bytes are downloaded (GET), relative to the site.")


class PasteSerializer(serializers.ModelSerializer):
    """The Paste object."""

    password_protected = serializers.BooleanField(
        read_only=True, help_text="Extension: reading needs the password (header X-Paste-Password)."
    )

    created_at = UtcFormattedDateTimeField(
        fmt=PASTE_CREATED_AT_FORMAT, help_text="Creation time in UTC, as DD/MM/YYYY, HH:MM:SS."
    )
    files = serializers.SerializerMethodField(
        help_text="Extension: every file, first first, as {filename, content, syntax}; `content` is the first's."
    )
    attachments = serializers.SerializerMethodField(
        help_text="Extension: the files attached to the paste (id, filename, size, content_type, url), oldest first."
    )
    expiration = serializers.ChoiceField(choices=EXPIRATION_LABELS, source="get_expiration_display", read_only=True)

    class Meta:
        model = Paste
        fields = [
            "id",
            "name",
            "content",
            "created_at",
            "expiration",
            "exposure",
            "views",
            "burn_after_read",
            "encrypted",
            "password_protected",
            "discussion",
            "files",
            "attachments",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "encrypted": {
                "help_text": "Extension: the content is the end-to-end encrypted envelope (pastes/README.md), "
                "readable only with the key in the link's #key=…"
            },
        }

    @extend_schema_field(AttachmentSerializer(many=True))
    def get_attachments(self, paste: Paste) -> list[dict]:
        return attachments_of(paste)

    def to_representation(self, paste: Paste) -> dict:
        # Built directly: DRF would build this serializer's fields from the model for every
        # paste (about a third of a read's CPU time). The fields above still describe the
        # schema, and a test checks that both ways give the same object.
        return {
            "id": paste.id,
            "name": paste.name,
            "content": paste.content,
            "created_at": paste.created_at.astimezone(UTC).strftime(PASTE_CREATED_AT_FORMAT),
            "expiration": paste.get_expiration_display(),
            "exposure": str(paste.exposure),
            "views": paste.views,
            "burn_after_read": paste.burn_after_read,
            "encrypted": paste.encrypted,
            "password_protected": paste.password_protected,
            "discussion": paste.discussion,
            "files": paste_files(paste),
            "attachments": attachments_of(paste),
        }

    @extend_schema_field(
        {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {name: {"type": "string"} for name in ("filename", "content", "syntax")},
            },
        }
    )
    def get_files(self, paste: Paste) -> list[dict]:
        return paste_files(paste)


class PasteInputSerializer(serializers.Serializer):
    """Fields a client may send for a paste; unknown field names are refused."""

    default_error_messages = {
        "invalid": "The request body must be a JSON object.",
        "unknown_fields": "Unknown field(s): {unknown}. Allowed fields: {allowed}.",
        "discussion_burns": "A paste cannot both burn after reading and take comments: choose one.",
        "content_and_files": "Send either content (one file) or files, not both.",
    }
    requires_text = True  # content or files (PasteEditSerializer: neither)

    name = StrictCharField(
        min_length=NAME_MIN_LENGTH,
        max_length=NAME_MAX_LENGTH,
        error_messages={
            "blank": NAME_LENGTH_MESSAGE,
            "min_length": NAME_LENGTH_MESSAGE,
            "max_length": NAME_LENGTH_MESSAGE,
        },
        help_text=NAME_LENGTH_MESSAGE
        + f" (at most {NAME_MAX_LENGTH} as sent; at least {NAME_MIN_LENGTH} once surrounding whitespace is trimmed).",
    )
    # min_length only tells the schema; "blank" answers an empty content first.
    content = StrictCharField(
        trim_whitespace=False,
        min_length=1,
        required=False,
        help_text="The text; must not be empty. Required unless `files` is given (then leave it out).",
    )
    files = FilesField(
        required=False,
        help_text="Extension: the paste's files, 1 to 20 {filename, content, syntax?}, instead of `content`; "
        "syntax left out is guessed from the filename, then the content. On edit it replaces every file.",
    )
    expiration = LabelChoiceField(
        allowed=EXPIRATION_LABELS,
        required=False,
        default=Paste.Expiration.NEVER.label,
        help_text="One of: " + ", ".join(EXPIRATION_LABELS) + ". Months are 30 days, a year 365 days.",
    )
    exposure = LabelChoiceField(
        allowed=EXPOSURE_VALUES,
        required=False,
        default=Paste.Exposure.PUBLIC.value,
        help_text="public: anyone, listed on the account; unlisted: anyone with the id; private: the owner only.",
    )
    burn_after_read = StrictBooleanField(
        required=False,
        default=False,
        help_text="Deleted by the first successful read of anyone but the owner.",
    )
    # Not in the modelled API: only the HTML page (/{id}) uses it, so the Paste object stays as specified.
    syntax = SyntaxField(
        required=False,
        allow_blank=True,
        max_length=SYNTAX_MAX_LENGTH,
        validators=[validate_syntax],
        help_text="Extension: the language for the HTML page's highlighting (a Pygments name such as python, "
        "json, bash); empty or absent: guessed from the content.",
    )

    encrypted = StrictBooleanField(
        required=False,
        default=False,
        help_text="Extension: the content is an end-to-end encrypted envelope "
        '({"v": 1, "alg": "AES-GCM-256", "iv": …, "ct": …}, pastes/README.md) that the server stores '
        "without being able to read it; the key stays in the link's #key=….",
    )
    password = StrictCharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        max_length=PASSWORD_MAX_LENGTH,
        write_only=True,
        help_text="Extension: a password readers must give (API: header X-Paste-Password; page: a form). "
        "Stored hashed; empty or absent: none (on edit, empty removes it).",
    )

    discussion = StrictBooleanField(
        required=False,
        default=False,
        help_text="Extension: readers may comment under the paste (GET/POST /paste/@{id}/comments). "
        "Not with burn_after_read: the paste would be gone before anyone could answer.",
    )

    def validate(self, values: dict) -> dict:
        if values.get("discussion") and values.get("burn_after_read"):
            self.fail_body("discussion_burns")
        return values

    def fail_body(self, key: str, **kwargs: Any) -> NoReturn:
        """Like fail(), for the body as a whole (DRF wants those errors keyed, not bare)."""
        message = self.error_messages[key].format(**kwargs)
        raise serializers.ValidationError({api_settings.NON_FIELD_ERRORS_KEY: [message]}, code=key)

    def run_validation(self, data: object = serializers.empty) -> dict:
        if data is None:  # a JSON `null` body; DRF would answer "No data provided"
            self.fail_body("invalid")
        return super().run_validation(data)

    def to_internal_value(self, data: object) -> dict:
        if not isinstance(data, Mapping):
            self.fail_body("invalid")
        if unknown := sorted(set(data) - set(self.fields)):
            self.fail_body("unknown_fields", unknown=", ".join(map(str, unknown)), allowed=", ".join(self.fields))
        if "content" in data and "files" in data:
            self.fail_body("content_and_files")
        values = super().to_internal_value(data)
        if self.requires_text and "content" not in values and "files" not in values:
            raise serializers.ValidationError({"content": ["content is required."]}, code="required")
        if "expiration" in values:
            values["expiration"] = Paste.expiration_from_label(values["expiration"])
        return values


class PasteCreateSerializer(PasteInputSerializer):
    """Body of POST /create."""


class PasteEditSerializer(PasteInputSerializer):
    """Body of PATCH /edit/{id}: the id, plus only the fields to change."""

    requires_text = False

    default_error_messages = {"id_mismatch": "The id in the body ({given}) must equal the paste id in the path."}

    # min_length for the schema (minLength, and a pattern that needs a non-blank character):
    # an empty or blank id is refused ("id must not be empty."), which the schema did not say.
    id = StrictCharField(min_length=1, help_text="Required; must equal the paste id in the path.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Every other field is optional, and one left out stays as it is rather than being reset.
        for name, field in self.fields.items():
            if name != "id":
                field.required = False
                field.default = serializers.empty

    def validate_id(self, value: str) -> str:
        if value != self.context["paste_id"]:
            self.fail("id_mismatch", given=value)
        return value


class UserSerializer(serializers.Serializer):
    """The User object; `pastes` holds only the pastes the requester may see."""

    username = serializers.CharField()
    avatar = serializers.SerializerMethodField()
    bio = serializers.SerializerMethodField()
    badges = serializers.SerializerMethodField()
    created_at = UtcFormattedDateTimeField(source="date_joined", help_text="ISO 8601, UTC, with microseconds.")
    last_login = UtcFormattedDateTimeField(allow_null=True, help_text="Last sign-in (ISO 8601), or null.")
    max_paste_chars = serializers.SerializerMethodField()
    max_attachment_bytes = serializers.SerializerMethodField(
        help_text="Extension: the most bytes this user's paste attachments may hold in total."
    )
    attachment_bytes = serializers.SerializerMethodField(
        help_text="Extension: the bytes this user's paste attachments hold now."
    )
    pastes = serializers.SerializerMethodField(
        help_text=f"One page of the pastes, newest first: {ACCOUNT_PER_PAGE} by default (query parameters page and "
        "per_page); pastes_count says how many there are in all."
    )
    pastes_count = serializers.SerializerMethodField(
        help_text="Extension: how many pastes the requester sees on this account, over every page."
    )

    def _profile(self, user: AbstractBaseUser) -> PasteProfile:
        return self.context["profile"]

    @extend_schema_field({"type": "string", "format": "uri", "nullable": True})
    def get_avatar(self, user: AbstractBaseUser) -> str | None:
        return self._profile(user).avatar or None

    def get_bio(self, user: AbstractBaseUser) -> str | None:
        return self._profile(user).bio or None

    def get_badges(self, user: AbstractBaseUser) -> list[str]:
        return list(self._profile(user).badges or [])

    def get_max_paste_chars(self, user: AbstractBaseUser) -> int:
        return self._profile(user).max_paste_chars

    def get_max_attachment_bytes(self, user: AbstractBaseUser) -> int:
        return self._profile(user).max_attachment_bytes

    def get_attachment_bytes(self, user: AbstractBaseUser) -> int:
        return used_bytes(user)

    @extend_schema_field(PasteSerializer(many=True))
    def get_pastes(self, user: AbstractBaseUser) -> list[dict]:
        return PasteSerializer(self.context["pastes"], many=True).data

    def get_pastes_count(self, user: AbstractBaseUser) -> int:
        return self.context["pastes_count"]


class AccountPageSerializer(serializers.Serializer):
    """Query parameters of GET /accounts/@{username}: which page of `pastes`."""

    page = serializers.IntegerField(
        min_value=1,
        max_value=ACCOUNT_MAX_PAGE,
        default=1,
        error_messages={
            "invalid": "page must be a whole number from 1.",
            "min_value": "page must be a whole number from 1.",
            "max_value": f"page must be a whole number from 1 to {ACCOUNT_MAX_PAGE}.",
            "max_string_length": "page must be a whole number from 1.",
        },
        help_text="Which page of `pastes` (default 1, the newest); past the last one, `pastes` is empty.",
    )
    per_page = serializers.IntegerField(
        min_value=1,
        max_value=ACCOUNT_MAX_PER_PAGE,
        default=ACCOUNT_PER_PAGE,
        error_messages=dict.fromkeys(
            ("invalid", "min_value", "max_value", "max_string_length"),
            f"per_page must be a whole number from 1 to {ACCOUNT_MAX_PER_PAGE}.",
        ),
        help_text=f"How many pastes a page holds: 1 to {ACCOUNT_MAX_PER_PAGE} (default {ACCOUNT_PER_PAGE}).",
    )
