"""OpenAPI descriptions of interface B, including what we chose where the spec is silent."""

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers

from common.permissions import READ_ONLY_KEY
from pastes.serializers import (
    ACCOUNT_MAX_PER_PAGE,
    ACCOUNT_PER_PAGE,
    EXPIRATION_LABELS,
    NAME_LENGTH_MESSAGE,
    AccountPageSerializer,
    PasteCreateSerializer,
    PasteEditSerializer,
    PasteSerializer,
    UserSerializer,
)

TAGS = ["pastes"]


class ErrorSerializer(serializers.Serializer):
    """Every error of interface B."""

    code = serializers.IntegerField(help_text="The HTTP status code, repeated.")
    message = serializers.CharField(help_text="What went wrong, for a human.")


class PasteKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "pastes.authentication.PasteKeyAuthentication"
    name = "pastesApiKey"
    priority = 1

    def get_security_definition(self, auto_schema: object) -> dict:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "The pastes API key as the whole header value (`Authorization: pst_…`); "
            "a leading `Bearer ` is tolerated. An unknown or revoked key is a 401 on every endpoint.",
        }


class StrictCharFieldSchema(OpenApiSerializerFieldExtension):
    """A StrictCharField refuses NUL (PostgreSQL cannot store it): the schema's pattern says so."""

    target_class = "pastes.serializers.StrictCharField"

    def map_serializer_field(self, auto_schema: AutoSchema, direction: str) -> dict:
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        return {**schema, "pattern": self.pattern(self.target)}

    @staticmethod
    def pattern(field: serializers.CharField) -> str:
        """No NUL; for a trimmed field with a minimum, that many characters from the first non-blank to the last.

        (" a " is too short for a minimum of 2; the maximum counts the string as sent, as maxLength does.)
        Blank is what str.strip() removes, spelled out: the schema's regex dialect (ECMA-262) has another \\s.
        """
        if not (field.trim_whitespace and field.min_length):
            return "^[^\\u0000]*$"
        blank = "".join(f"\\u{ord(char):04x}" for char in map(chr, range(0x3001)) if char.isspace())
        edge = f"[^{blank}\\u0000]"
        if field.min_length == 1:
            return f"^[{blank}]*{edge}([^\\u0000]*{edge})?[{blank}]*$"
        return f"^[{blank}]*{edge}[^\\u0000]{{{field.min_length - 2},}}{edge}[{blank}]*$"


class SyntaxFieldSchema(OpenApiSerializerFieldExtension):
    """`syntax` takes the names Pygments knows: the schema lists them (imported only to build it)."""

    target_class = "pastes.serializers.SyntaxField"

    def map_serializer_field(self, auto_schema: AutoSchema, direction: str) -> dict:
        from pastes.highlighting import known_syntaxes

        return {"type": "string", "enum": ["", *known_syntaxes()]}


class LabelChoiceFieldSchema(OpenApiSerializerFieldExtension):
    """A LabelChoiceField is a string enum: the schema lists the values the field accepts."""

    target_class = "pastes.serializers.LabelChoiceField"

    def map_serializer_field(self, auto_schema: AutoSchema, direction: str) -> dict:
        return {"type": "string", "enum": list(self.target.allowed)}


def closed_request_bodies(result: dict, generator: object, request: object, public: bool) -> dict:
    """Postprocessing hook: B's request bodies refuse unknown fields, so their schemas say so.

    And a create needs its text, as `content` (one file) or `files`, never both (issue 47).
    """
    schemas = result.get("components", {}).get("schemas", {})
    for name in ("PasteCreate", "PasteEdit", "CommentInput"):
        if name in schemas:
            schemas[name]["additionalProperties"] = False
    if "PasteCreate" in schemas:
        schemas["PasteCreate"]["oneOf"] = [{"required": ["content"]}, {"required": ["files"]}]
    if "CommentInput" in schemas:  # a comment's text is kept as sent, but must not be blank
        text = schemas["CommentInput"]["properties"]["text"]
        text.update(minLength=1, pattern=StrictCharFieldSchema.pattern(serializers.CharField(min_length=1)))
    for name in ("PasteCreate", "PasteEdit"):
        if name in schemas:  # a discussion would outlive its paste's first reading (pastes/README.md)
            both = {"discussion": {"const": True}, "burn_after_read": {"const": True}}
            schemas[name]["not"] = {"required": list(both), "properties": both}
    return result


def _error(description: str) -> OpenApiResponse:
    return OpenApiResponse(response=ErrorSerializer, description=description)


def _limits() -> str:
    return (
        f"Rate limits (per minute, settings PASTES_WRITE_RATE_LIMIT / PASTES_READ_RATE_LIMIT; defaults "
        f"{settings.PASTES_WRITE_RATE_LIMIT} writes per key, {settings.PASTES_READ_RATE_LIMIT} reads per key "
        "or, without a key, per client address) answer 429 with a Retry-After header."
    )


UNAUTHORIZED = _error("No API key (where one is needed), or an unknown or revoked key.")
NOT_FOUND = _error(
    "No such paste, or it expired (and was deleted), was burned after reading, or is private to someone else."
)
RATE_LIMITED = _error("Rate limit exceeded; see Retry-After.")
BAD_REQUEST = _error(
    "Malformed JSON, a body that is not an object, an unknown field name, a wrong type, a value not in the "
    f"allowed list (the message lists them), empty content, or a bad name: `{NAME_LENGTH_MESSAGE}`."
)
TOO_LARGE = _error(
    "The user's pastes would exceed max_paste_chars (the message names the limit), or the body is over "
    "PASTES_MAX_BODY_BYTES."
)
UNSUPPORTED = _error("The body is not sent as Content-Type: application/json.")
# Every operation that writes: a read key (scope `read`) is refused before the paste is looked at.
READ_ONLY_DOC = f'The API key is read-only (scope `read`): `{{"code": 403, "message": "{READ_ONLY_KEY}"}}`'
READ_ONLY = _error(READ_ONLY_DOC + ".")
NOT_OWNER_OR_READ_ONLY = _error(READ_ONLY_DOC + "; or the paste belongs to someone else.")

READ_RULES = (
    "No key is needed for public and unlisted pastes; a private paste is visible only to its owner (404 for "
    "anyone else, so its existence is not revealed). An expired paste is deleted and answers 404. "
    "A successful GET by anyone but the owner adds 1 to `views` (the response shows the new count) and, "
    "for a burn-after-read paste, returns it one last time and deletes it in the same transaction: of two "
    "parallel readers exactly one gets it. The owner's reads and HEAD requests neither count nor burn. "
    "Known crawlers and link-preview agents (User-Agent of Slackbot, Twitterbot, facebookexternalhit, "
    "Discordbot, TelegramBot, WhatsApp, LinkedInBot, Googlebot, bingbot, …; common/bots.py) never count "
    "or burn: they get other pastes without counting, and a burn-after-read paste is a 404 to them, so a "
    "chat app unfurling the link cannot burn it before the person it was sent to opens it. "
    "The HTML page of a paste is /{id} (outside this API). "
    "A password-protected paste (`password_protected`) needs its password in the X-Paste-Password header, "
    "except for its owner: missing 401, wrong 403, and after PASTES_PASSWORD_RATE_LIMIT wrong ones from one "
    "address per PASTES_PASSWORD_RATE_PERIOD seconds, 429 with Retry-After; nothing is counted or burned "
    "before the password is right. An `encrypted` paste's content is the envelope of pastes/README.md, served "
    "as stored: only the holder of the link's #key can decrypt it. "
)
PASSWORD_PARAMETER = OpenApiParameter(
    "X-Paste-Password",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="The paste's password, for a password-protected paste.",
)
PASSWORD_ERRORS = {
    401: _error(
        "No API key where one is needed, an unknown or revoked key, or no X-Paste-Password for a "
        "password-protected paste."
    ),
    403: _error("Wrong X-Paste-Password."),
}

CREATE = {
    "operation_id": "pastes_create",
    "summary": "Create a paste",
    "description": (
        "Needs a key; the paste belongs to the key's user. Answers 200 with the Paste object (the create "
        "response does not count as a view and does not burn). `id` is 12 random characters from "
        "[A-Za-z0-9]. `expiration` runs from creation; months are 30 days and a year 365 days. "
        "Strings must be JSON strings and booleans JSON booleans (no coercion); `null` is refused; field names "
        "not listed are refused (400), to catch typos. The name is trimmed of surrounding whitespace. "
        "The sum of the lengths (in characters) of the user's unexpired pastes, this one included, may not "
        "exceed their max_paste_chars: otherwise 413. "
        "Extension, for curl: a body that is not JSON is the content itself when the query string carries "
        "`name` (`curl --data-binary @notes.txt -H 'Authorization: KEY' '.../create?name=notes'`; the other "
        "fields may follow in the query, `burn_after_read` as true/false), or a multipart form "
        "(`curl -F 'content=<-'` or `-F content=@file`) with the same fields; the text must be UTF-8. "
        "With `Accept: text/plain` the answer is the paste's page URL as the whole body, without a trailing "
        "newline; errors stay JSON. `encrypted: true` (extension) requires the content to be the encrypted "
        "envelope of pastes/README.md (else 400); `password` (extension) is stored hashed. " + _limits()
    ),
    "request": PasteCreateSerializer,
    "responses": {
        200: PasteSerializer,
        400: BAD_REQUEST,
        401: UNAUTHORIZED,
        403: READ_ONLY,
        413: TOO_LARGE,
        415: UNSUPPORTED,
        429: RATE_LIMITED,
    },
    "tags": TAGS,
}

DETAIL = {
    "operation_id": "pastes_retrieve",
    "summary": "Get a paste",
    "description": READ_RULES + "Responses carry Cache-Control: no-store. " + _limits(),
    "parameters": [PASSWORD_PARAMETER],
    "responses": {200: PasteSerializer, **PASSWORD_ERRORS, 404: NOT_FOUND, 429: RATE_LIMITED},
    "tags": TAGS,
}

RAW = {
    "operation_id": "pastes_raw",
    "summary": "Get a paste's content as plain text",
    "description": (
        "The content alone as text/plain; charset=utf-8, for browsers and curl (not in the spec). "
        + READ_RULES
        + "Errors are still JSON {code, message}. "
        + _limits()
    ),
    "parameters": [PASSWORD_PARAMETER],
    "responses": {
        (200, "text/plain"): OpenApiTypes.STR,
        **PASSWORD_ERRORS,
        404: NOT_FOUND,
        429: RATE_LIMITED,
    },
    "tags": TAGS,
}

EDIT = {
    "operation_id": "pastes_edit",
    "summary": "Edit a paste you own",
    "description": (
        "Needs the owner's key. The body's `id` must equal the path id (else 400); every other field is "
        "optional and left unchanged when absent. A new `expiration` runs from the time of the edit, even if "
        "it is the same label as before. `views` and `created_at` are kept. The quota is checked with the new "
        "content in place of the old. Another user gets 403 for a paste they can see (public or unlisted) "
        "and 404 for one they cannot (private). Allowed expirations: " + ", ".join(EXPIRATION_LABELS) + ". "
        "Checks run in this order: key (401), key's scope (403), paste visible (404), owner (403), body (400), "
        "quota (413). " + _limits()
    ),
    "request": PasteEditSerializer,
    "responses": {
        200: PasteSerializer,
        400: BAD_REQUEST,
        401: UNAUTHORIZED,
        403: NOT_OWNER_OR_READ_ONLY,
        404: NOT_FOUND,
        413: TOO_LARGE,
        415: UNSUPPORTED,
        429: RATE_LIMITED,
    },
    "tags": TAGS,
}

DELETE = {
    "operation_id": "pastes_delete",
    "summary": "Delete a paste you own",
    "description": (
        "Needs the owner's key. 204 with an empty body; the paste is gone for good. Another user gets 403 for "
        "a paste they can see and 404 for one they cannot. " + _limits()
    ),
    "request": None,
    "responses": {
        204: OpenApiResponse(description="Deleted."),
        401: UNAUTHORIZED,
        403: NOT_OWNER_OR_READ_ONLY,
        404: NOT_FOUND,
        429: RATE_LIMITED,
    },
    "tags": TAGS,
}

ACCOUNT = {
    "operation_id": "pastes_account",
    "summary": "Get a user and their pastes",
    "description": (
        "No key needed. `pastes` are newest first: the owner (with their key) sees all their unexpired pastes; "
        "everyone else sees only public ones that are neither burn-after-read nor password-protected (listing "
        "those would reveal their content without burning them or asking for the password). "
        "Listing does not count views. `created_at` is when the account was "
        "created and `last_login` the last sign-in to the site (null if never), both ISO 8601 in UTC with "
        "microseconds. `avatar` and `bio` are null when unset; `max_paste_chars` defaults to "
        "PASTES_DEFAULT_MAX_CHARS and is set per user in the admin. Unknown or deactivated users are 404. "
        f"`pastes` is paged (extension): {ACCOUNT_PER_PAGE} a page by default, `page` and `per_page` choose "
        f"(per_page 1 to {ACCOUNT_MAX_PER_PAGE}; a page past the last is an empty array); `pastes_count` is how "
        "many the requester sees over all pages. Without parameters the object is IdefaSoft's, with the newest "
        "page. Other values of page or per_page are 400. " + _limits()
    ),
    "parameters": [AccountPageSerializer],
    "responses": {
        200: UserSerializer,
        400: _error("page or per_page is not a whole number in range."),
        401: UNAUTHORIZED,
        404: _error("No such user."),
        429: RATE_LIMITED,
    },
    "tags": TAGS,
}
