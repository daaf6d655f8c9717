"""Several files per paste (issue 47): checking them, storing them, reading them, zipping them.

A file is `{"filename", "content", "syntax"}`. The first is stored on the Paste row (content,
syntax, filename) and the others as PasteFile rows, so that a one-file paste, the common case,
is read with no query beyond the paste's own; `paste_files` fetches the others only when
Paste.file_count says there are some (or takes them from a prefetch).
"""

import re
import unicodedata
import zipfile
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.db.models import Sum
from django.utils.text import slugify
from drf_spectacular.utils import extend_schema_field
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound
from rest_framework import serializers

from pastes.encryption import is_envelope
from pastes.errors import NotAnEnvelope, PayloadTooLarge
from pastes.models import FILENAME_MAX_LENGTH, SYNTAX_MAX_LENGTH, Paste, PasteFile, PasteRevision

MAX_FILES = 20
FILE_FIELDS = ("filename", "content", "syntax")
_PREFETCHED = "_more_files_cache"


# --- Checking what a client sends ---------------------------------------------------------------


def filename_problem(filename: str) -> str | None:
    """Why `filename` cannot be a file's name (it becomes a name in a zip and a download), or None."""
    if not filename.strip():
        return "must not be empty"
    if len(filename) > FILENAME_MAX_LENGTH:
        return f"must be at most {FILENAME_MAX_LENGTH} characters long"
    if "/" in filename or "\\" in filename:
        return "must not contain a path separator (/ or \\)"
    if any(unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") for char in filename):
        return "must not contain control characters"
    if ".." in filename:
        return "must not contain '..'"
    if filename != filename.strip():
        return "must not start or end with whitespace"
    return None


@lru_cache(maxsize=4096)
def syntax_for_filename(filename: str) -> str:
    """The Pygments name its extension says (`setup.py` → python), or "" when it says nothing."""
    try:
        lexer = get_lexer_for_filename(filename)
    except ClassNotFound:
        return ""
    return lexer.aliases[0] if lexer.aliases else ""


@extend_schema_field(
    {
        "type": "array",
        "minItems": 1,
        "maxItems": MAX_FILES,
        "items": {
            "type": "object",
            "required": ["filename", "content"],
            "additionalProperties": False,
            "properties": {
                "filename": {"type": "string", "minLength": 1, "maxLength": FILENAME_MAX_LENGTH},
                "content": {"type": "string", "minLength": 1, "pattern": "^[^\\u0000]*$"},
                "syntax": {"type": "string", "maxLength": SYNTAX_MAX_LENGTH},
            },
        },
    }
)
class FilesField(serializers.Field):
    """`files`: 1 to MAX_FILES objects {filename, content, syntax?}; each error names the file."""

    default_error_messages = {
        "not_list": "files must be a list of objects {{filename, content, syntax}}.",
        "empty": "files must hold at least one file.",
        "too_many": f"A paste holds at most {MAX_FILES} files.",
        "not_object": "files[{index}] must be an object {{filename, content, syntax}}.",
        "unknown": "files[{index}] has unknown field(s): {unknown}. Allowed fields: filename, content, syntax.",
        "missing": "files[{index}].{field} is required.",
        "not_string": "files[{index}].{field} must be a string.",
        "nul": "files[{index}].{field} must not contain NUL characters.",
        "surrogates": "files[{index}].{field} contains an unpaired surrogate escape, which is not valid text.",
        "blank": "files[{index}].content must not be empty.",
        "filename": "files[{index}].filename {problem}.",
        "duplicate": "files[{index}].filename {filename!r} is used twice: filenames must differ.",
        "syntax_length": f"files[{{index}}].syntax must be at most {SYNTAX_MAX_LENGTH} characters long.",
        "syntax": "files[{index}].syntax: unknown syntax {syntax}: use a Pygments language name such as python.",
    }

    def to_representation(self, value: Any) -> Any:
        return value

    def to_internal_value(self, data: object) -> list[dict]:
        if not isinstance(data, list):
            self.fail("not_list")
        if not data:
            self.fail("empty")
        if len(data) > MAX_FILES:
            self.fail("too_many")
        files, seen = [], set()
        for index, item in enumerate(data):
            if not isinstance(item, dict):
                self.fail("not_object", index=index)
            if unknown := sorted(set(item) - set(FILE_FIELDS)):
                self.fail("unknown", index=index, unknown=", ".join(unknown))
            for field in ("filename", "content", "syntax"):
                if field not in item:
                    if field == "syntax":
                        continue
                    self.fail("missing", index=index, field=field)
                value = item[field]
                if not isinstance(value, str):
                    self.fail("not_string", index=index, field=field)
                if "\x00" in value:
                    self.fail("nul", index=index, field=field)
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    self.fail("surrogates", index=index, field=field)
            filename, content, syntax = item["filename"], item["content"], item.get("syntax", "")
            if problem := filename_problem(filename):
                self.fail("filename", index=index, problem=problem)
            if filename in seen:
                self.fail("duplicate", index=index, filename=filename)
            seen.add(filename)
            if not content:
                self.fail("blank", index=index)
            if len(syntax) > SYNTAX_MAX_LENGTH:
                self.fail("syntax_length", index=index)
            from pastes.highlighting import is_known_syntax

            if syntax and not is_known_syntax(syntax):
                self.fail("syntax", index=index, syntax=syntax)
            files.append({"filename": filename, "content": content, "syntax": syntax})
        return files


def prepare_files(files: list[dict], *, encrypted: bool) -> list[dict]:
    """Check the files as a whole and fill in each syntax (from the filename first, then the content).

    Encrypted pastes: every content and every filename is an envelope, and nothing is guessed.
    """
    size = sum(len(file["content"].encode("utf-8")) for file in files)
    if size > settings.PASTES_MAX_BODY_BYTES:
        raise PayloadTooLarge(
            f"The files are too large: together they may hold at most {settings.PASTES_MAX_BODY_BYTES} bytes."
        )
    if encrypted:
        if not all(is_envelope(file["content"]) and is_envelope(file["filename"]) for file in files):
            raise NotAnEnvelope()
        return [file | {"syntax": file.get("syntax", "")} for file in files]
    from pastes.highlighting import guess_syntax

    return [
        file | {"syntax": file.get("syntax") or syntax_for_filename(file["filename"]) or guess_syntax(file["content"])}
        for file in files
    ]


def files_chars(files: list[dict]) -> int:
    return sum(len(file["content"]) for file in files)


# --- Reading ---------------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def _extension(syntax: str) -> str:
    try:
        lexer = get_lexer_by_name(syntax) if syntax else None
    except ClassNotFound:
        lexer = None
    patterns = [pattern for pattern in (lexer.filenames if lexer else []) if re.fullmatch(r"\*\.\w+", pattern)]
    return patterns[0][1:] if patterns else ".txt"


def first_filename(paste: Paste) -> str:
    """The first file's name: as given, else the paste's name with its syntax's extension (no guessing)."""
    if paste.filename:
        return paste.filename
    return (slugify(paste.name) or paste.id) + _extension(paste.syntax)


def paste_files(paste: Paste) -> list[dict]:
    """Every file of the paste, first first. One-file pastes: no query."""
    first = {"filename": first_filename(paste), "content": paste.content, "syntax": paste.syntax}
    if paste.file_count <= 1:
        return [first]
    more = getattr(paste, _PREFETCHED, None)
    if more is None:
        more = load_files(paste)
    return [first, *more]


def load_files(paste: Paste) -> list[dict]:
    """Fetch files 2… into the paste (before a burn deletes them, or for a page); returns them."""
    more = [
        {"filename": file.filename, "content": file.content, "syntax": file.syntax}
        for file in PasteFile.objects.filter(paste_id=paste.pk).order_by("position")
    ]
    setattr(paste, _PREFETCHED, more)
    return more


def prefetch_files(pastes: list[Paste]) -> None:
    """One query for the files 2… of every many-file paste in `pastes` (an account's page)."""
    many = {paste.pk: paste for paste in pastes if paste.file_count > 1}
    if not many:
        return
    for paste in many.values():
        setattr(paste, _PREFETCHED, [])
    for file in PasteFile.objects.filter(paste_id__in=list(many)).order_by("paste_id", "position"):
        getattr(many[file.paste_id], _PREFETCHED).append(
            {"filename": file.filename, "content": file.content, "syntax": file.syntax}
        )


# --- Writing (inside the caller's transaction) ----------------------------------------------------


def apply_first_file(paste: Paste, files: list[dict]) -> None:
    """Put the first file on the paste row and count the files (the row is saved by the caller)."""
    first = files[0]
    paste.content, paste.syntax, paste.filename = first["content"], first["syntax"], first["filename"]
    paste.file_count = len(files)
    setattr(paste, _PREFETCHED, [dict(file) for file in files[1:]])


def store_more_files(paste: Paste, files: list[dict], *, replacing: bool) -> None:
    """Write files 2… of a saved paste, replacing the ones it had."""
    if replacing:
        PasteFile.objects.filter(paste_id=paste.pk).delete()
    PasteFile.objects.bulk_create(
        PasteFile(paste_id=paste.pk, position=position, **file) for position, file in enumerate(files[1:], start=2)
    )


def owner_extra_chars(owner: Any, *, excluding: Paste | None = None) -> int:
    """Characters the owner stores beyond their pastes' first files: files 2… and kept revisions."""
    more = PasteFile.objects.filter(paste__owner=owner)
    revisions = PasteRevision.objects.filter(paste__owner=owner, files__isnull=False)
    if excluding is not None:
        more, revisions = more.exclude(paste_id=excluding.pk), revisions.exclude(paste_id=excluding.pk)
    return (more.aggregate(total=Sum("content_chars"))["total"] or 0) + (
        revisions.aggregate(total=Sum("size"))["total"] or 0
    )


# --- The zip of every file -------------------------------------------------------------------------


class _Chunks:
    """A write-only file for zipfile whose written bytes are taken out as they come (no seeking)."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.offset = 0

    def write(self, data: bytes) -> int:
        self.parts.append(bytes(data))
        self.offset += len(data)
        return len(data)

    def tell(self) -> int:
        return self.offset

    def flush(self) -> None:
        pass

    def take(self) -> bytes:
        data, self.parts = b"".join(self.parts), []
        return data


def zip_chunks(files: list[dict], *, encrypted: bool) -> Iterator[bytes]:
    """The files as a zip, made as it is sent: one file's compressed bytes in memory at a time.

    Bounded by what a paste may hold (MAX_FILES files, PASTES_MAX_BODY_BYTES in all). Names are
    the checked filenames (no separators, no `..`), so unzipping writes nowhere else; encrypted
    files, whose names are envelopes, are file-1.e2e.json and so on.
    """
    out = _Chunks()
    with zipfile.ZipFile(out, mode="w", compression=zipfile.ZIP_DEFLATED) as archive:
        for index, file in enumerate(files, start=1):
            name = f"file-{index}.e2e.json" if encrypted else file["filename"]
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            with archive.open(info, mode="w") as entry:
                entry.write(file["content"].encode("utf-8"))
            yield out.take()
    yield out.take()


# --- The paste page ------------------------------------------------------------------------------


def files_for_page(paste: Paste) -> list[dict]:
    """Files 2… of a many-file paste, highlighted, with their raw and download links (none for one file)."""
    from django.urls import reverse

    from pastes.highlighting import highlighted, language_name, lexer_for

    if paste.file_count <= 1:
        return []
    shown = []
    for number, file in enumerate(paste_files(paste), start=1):
        entry = {
            "number": number,
            "filename": file["filename"],
            "raw_url": reverse("pastes:paste-file-raw", kwargs={"paste_id": paste.id, "number": number}),
            "download_url": reverse("pastes:paste-file-download", kwargs={"paste_id": paste.id, "number": number}),
            "content": file["content"],
            "envelope_id": f"file-{number}-envelope",
            "filename_envelope_id": f"file-{number}-filename",
        }
        if not paste.encrypted:
            lexer = lexer_for(file["content"], file["syntax"])
            code = highlighted(file["content"], lexer, anchors=f"F{number}L")
            entry |= {"code": code, "language": language_name(lexer)}
        shown.append(entry)
    return shown
