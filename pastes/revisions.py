"""Revisions (issue 47): every edit that changes a paste's files keeps the version before it.

A revision is numbered from 1 (the paste as created) and holds that version's name and files;
the paste itself is always the newest version. Revisions count against the owner's quota until
the owner removes their content (the revision stays listed, as removed). Burn-after-read pastes
keep none: they are meant to exist once.
"""

import difflib
from collections.abc import Iterator

from django.db.models import BooleanField, ExpressionWrapper, Max, Q, Sum
from django.utils.translation import gettext_noop

from pastes.errors import PastesError
from pastes.files import files_chars, paste_files
from pastes.models import Paste, PasteRevision


class RevisionNotFound(PastesError):
    status = 404
    message = "Revision not found: GET /paste/@{id}/revisions lists this paste's revisions."


class RevisionRemoved(PastesError):
    status = 410
    message = gettext_noop("The owner removed this revision's content; it stays listed as removed.")


def changed_filenames(before: list[dict], after: list[dict]) -> list[str]:
    """Filenames added, removed, or whose content or syntax changed, in the order they appear."""
    old = {file["filename"]: file for file in before}
    new = {file["filename"]: file for file in after}
    names = [file["filename"] for file in before] + [name for name in new if name not in old]
    return [name for name in names if old.get(name) != new.get(name)]


def keep_revision(*, locked: Paste, new_name: str, new_files: list[dict]) -> PasteRevision | None:
    """Store `locked` (the paste row locked for an edit, not yet changed) as its newest revision.

    Nothing is kept when neither the name nor the files change, or for a burn-after-read paste.
    The number comes from the paste's own revisions under the paste row's lock, so parallel
    edits of one paste number theirs one after the other (and the unique constraint says so too).
    """
    before = paste_files(locked)
    if before == new_files:
        return None
    number = (locked.revisions.aggregate(last=Max("number"))["last"] or 0) + 1
    return PasteRevision.objects.create(
        paste=locked,
        number=number,
        created_at=locked.updated_at,
        name=locked.name,
        files=before,
        size=files_chars(before),
        changed=changed_filenames(before, new_files),
    )


def revision_size_if_kept(*, locked: Paste, new_name: str, new_files: list[dict]) -> int:
    """Characters the revision an edit would keep holds (0 if it keeps none): for the quota."""
    if locked.burn_after_read:
        return 0
    before = paste_files(locked)
    return 0 if before == new_files else files_chars(before)


def kept_chars(paste: Paste) -> int:
    """Characters the paste's revisions hold (removed ones hold none)."""
    kept = PasteRevision.objects.filter(paste_id=paste.pk, files__isnull=False).aggregate(total=Sum("size"))
    return kept["total"] or 0


def revision_get(*, paste: Paste, number: int) -> PasteRevision:
    revision = PasteRevision.objects.filter(paste_id=paste.pk, number=number).first()
    if revision is None:
        raise RevisionNotFound()
    return revision


def revision_remove(*, paste: Paste, number: int) -> None:
    """The owner removes a revision's content: it stays listed (removed) and no longer counts."""
    revision = revision_get(paste=paste, number=number)
    PasteRevision.objects.filter(pk=revision.pk).update(files=None)


def listing(paste: Paste) -> list[dict]:
    """The revisions, oldest first, without their content: number, created_at, size, files changed."""
    removed = ExpressionWrapper(Q(files__isnull=True), output_field=BooleanField())
    rows = PasteRevision.objects.filter(paste_id=paste.pk).order_by("number")
    return [
        {"number": number, "created_at": created_at, "size": size, "files": changed, "removed": is_removed}
        for number, created_at, size, changed, is_removed in rows.values_list(
            "number", "created_at", "size", "changed", removed
        )
    ]


def as_paste(paste: Paste, revision: PasteRevision) -> Paste:
    """A Paste (unsaved, for the Paste object) showing `revision`'s name and files, the rest as now."""
    if revision.removed:
        raise RevisionRemoved()
    copy = Paste(**{field.attname: getattr(paste, field.attname) for field in Paste._meta.concrete_fields})
    files = revision.files
    copy.name, copy.content, copy.syntax, copy.filename = (
        revision.name,
        files[0]["content"],
        files[0]["syntax"],
        files[0]["filename"],
    )
    copy.file_count = len(files)
    copy.created_at = revision.created_at
    copy._more_files_cache = [dict(file) for file in files[1:]]
    return copy


def unified_diff(before: list[dict], after: list[dict]) -> Iterator[str]:
    """A unified diff from one version's files to another's, file by file (a/… and b/…)."""
    old = {file["filename"]: file["content"] for file in before}
    new = {file["filename"]: file["content"] for file in after}
    names = list(old) + [name for name in new if name not in old]
    for name in names:
        a, b = old.get(name), new.get(name)
        if a == b:
            continue
        yield from difflib.unified_diff(
            (a or "").splitlines(keepends=True),
            (b or "").splitlines(keepends=True),
            fromfile="/dev/null" if a is None else f"a/{name}",
            tofile="/dev/null" if b is None else f"b/{name}",
        )
