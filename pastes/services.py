"""Writes on pastes: create, edit, delete, and reads that count views or burn the paste.

Concurrency rules, each kept inside one transaction:
- quota: the owner's PasteProfile row is locked (select_for_update) before their total is
  summed, so two parallel creates by one user cannot both fit in the last free characters;
- views: the common read (not the owner's, not burn-after-read) counts its view and fetches
  the paste in one UPDATE ... RETURNING, atomic on its own (see _count_view);
- burn after read: a reader other than the owner locks the paste row, so of two parallel
  readers of a burn-after-read paste the second finds it gone.
On SQLite, transactions start with BEGIN IMMEDIATE (see common.env), which serialises
writers in the same way; SQLite ignores FOR UPDATE.
"""

from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, models, transaction
from django.utils import timezone

from common.paging import page_rows
from pastes import files as paste_files_module
from pastes import revisions
from pastes.encryption import is_envelope
from pastes.errors import (
    DiscussionBurns,
    NotAnEnvelope,
    NotOwner,
    PasswordRequired,
    PasteNotFound,
    QuotaExceeded,
    WrongPassword,
)
from pastes.models import (
    OwnerStoredChars,
    Paste,
    PasteFile,
    PasteProfile,
    PasteRevision,
    generate_paste_id,
    is_paste_id,
)

ID_ATTEMPTS = 5


def _lock_profile(user: AbstractBaseUser) -> PasteProfile:
    # One SELECT ... FOR UPDATE; of parallel first creates, the unique user_id lets one insert
    # the profile and the others wait for it and lock it in turn (get_or_create's retry).
    profile, _ = PasteProfile.objects.select_for_update().get_or_create(user=user)
    return profile


def _check_quota(
    *, owner: AbstractBaseUser, added_chars: int, now: datetime, excluding: Paste | None = None, grows: bool = True
) -> None:
    """Raise QuotaExceeded unless the owner's pastes, with `added_chars` more, fit their limit.

    Every file and every kept revision counts (OwnerStoredChars). With
    `excluding`, that paste is being replaced by `added_chars` characters (with its files and
    revisions); an edit that does not grow it (`grows` False) is always allowed, so a user whose
    limit was lowered below what they already store can still rename their pastes. Call
    inside a transaction: it locks the owner's profile and drops their expired pastes, which no
    longer count.
    """
    profile = _lock_profile(owner)
    stored, any_expired = _stored_chars(owner, now=now, excluding=excluding)
    if any_expired:
        Paste.objects.filter(owner=owner).expired(now).delete()
        stored, _ = _stored_chars(owner, now=now, excluding=excluding)
    needed = stored + added_chars
    if grows and needed > profile.max_paste_chars:
        raise QuotaExceeded(limit=profile.max_paste_chars, needed=needed)


PASTES = Paste._meta.db_table
# What the owner stores (pastes, files 2…, kept revisions; OwnerStoredChars, kept by triggers) less
# the paste being replaced, and whether any of their pastes has expired, in one statement.
STORED_CHARS_SQL = f"""SELECT
 COALESCE((SELECT chars FROM {OwnerStoredChars._meta.db_table} WHERE owner_id = %(owner)s), 0)
 - COALESCE((SELECT content_chars FROM {PASTES} WHERE id = %(excluding)s AND owner_id = %(owner)s), 0)
 - (SELECT COALESCE(SUM(f.content_chars), 0) FROM {PasteFile._meta.db_table} f JOIN {PASTES} p ON p.id = f.paste_id
    WHERE f.paste_id = %(excluding)s AND p.owner_id = %(owner)s)
 - (SELECT COALESCE(SUM(r.size), 0) FROM {PasteRevision._meta.db_table} r JOIN {PASTES} p ON p.id = r.paste_id
    WHERE r.paste_id = %(excluding)s AND r.files IS NOT NULL AND p.owner_id = %(owner)s),
 EXISTS (SELECT 1 FROM {PASTES} WHERE owner_id = %(owner)s AND expires_at <= %(now)s)"""


def _stored_chars(owner: AbstractBaseUser, *, now: datetime, excluding: Paste | None) -> tuple[int, bool]:
    """The characters the owner stores (less `excluding` and its files and revisions), and whether
    any of their pastes has expired: one row read, however many pastes the owner has. Read after
    the profile's lock is taken, in a statement of its own: a statement that waited for the lock
    would read from a snapshot taken before it."""
    params = {
        "owner": owner.pk,
        # No paste has an empty id (generate_paste_id), so "" excludes nothing.
        "excluding": excluding.pk if excluding is not None else "",
        "now": connection.ops.adapt_datetimefield_value(now),
    }
    with connection.cursor() as cursor:
        cursor.execute(STORED_CHARS_SQL, params)
        stored, any_expired = cursor.fetchone()
    return int(stored), bool(any_expired)


def paste_create(
    *,
    owner: AbstractBaseUser,
    name: str,
    content: str = "",
    expiration: Paste.Expiration = Paste.Expiration.NEVER,
    exposure: Paste.Exposure = Paste.Exposure.PUBLIC,
    burn_after_read: bool = False,
    syntax: str = "",
    encrypted: bool = False,
    password: str = "",
    discussion: bool = False,
    files: list[dict] | None = None,
) -> Paste:
    """A new paste: its text is `content` (one file), or `files` (one or more, pastes.files)."""
    now = timezone.now()
    if files is not None:
        files = paste_files_module.prepare_files(files, encrypted=encrypted)
        content, syntax = files[0]["content"], files[0]["syntax"]
    if encrypted and not is_envelope(content):
        raise NotAnEnvelope()
    paste = Paste(
        owner=owner,
        name=name,
        content=content,
        created_at=now,
        exposure=exposure,
        burn_after_read=burn_after_read,
        syntax=syntax,
        encrypted=encrypted,
        discussion=discussion,
    )
    if files is not None:
        paste_files_module.apply_first_file(paste, files)
    paste.set_password(password)
    paste.set_expiration(expiration, start=now)
    paste.full_clean(exclude=["id", "owner"], validate_unique=False, validate_constraints=False)
    for attempt in range(ID_ATTEMPTS):
        paste.id = generate_paste_id()
        try:
            # The owner's creates queue on their profile's lock from here to the commit, so it
            # holds no savepoint round trips: a colliding id (about never) retries it all.
            with transaction.atomic():
                added = len(content) if files is None else paste_files_module.files_chars(files)
                _check_quota(owner=owner, added_chars=added, now=now)
                paste.save(force_insert=True)
                if files is not None:
                    paste_files_module.store_more_files(paste, files, replacing=False)
        except IntegrityError:
            if attempt == ID_ATTEMPTS - 1 or not Paste.objects.filter(pk=paste.id).exists():
                raise
        else:
            return paste
    raise AssertionError("unreachable")  # pragma: no cover


def paste_update(*, paste: Paste, changes: dict) -> Paste:
    """Apply `changes` (name, content, files, expiration, exposure, burn_after_read, syntax,
    encrypted, password) to the owner's paste.

    A new expiration runs from now, even when it is the same label as before; an empty password
    removes it. An encrypted paste must keep an envelope as its content, whichever of the two changes.
    `files` replaces every file; `content` and `syntax` alone change the first file. An edit that
    changes the name or the files keeps the version before it as a revision (pastes.revisions),
    which counts against the quota, except on burn-after-read pastes, which keep none.
    """
    now = timezone.now()
    if "password" in changes:
        # Hashed before the row locks are taken: a password hasher takes a noticeable time on purpose.
        hashing = Paste()
        hashing.set_password(changes["password"])
        password_hash = hashing.password
    writes_text = any(field in changes for field in ("name", "content", "files", "syntax", "burn_after_read"))
    with transaction.atomic():
        if writes_text:
            # The owner's profile first, as every create does, then the paste: one lock order.
            _lock_profile(paste.owner)
        locked = Paste.objects.select_for_update().unexpired(now).filter(pk=paste.pk).first()
        if locked is None:
            raise PasteNotFound()
        for field in ("exposure", "burn_after_read", "encrypted", "discussion"):
            if field in changes:
                setattr(locked, field, changes[field])
        if locked.discussion and locked.burn_after_read:
            raise DiscussionBurns()
        new_files = _files_after(locked, changes)
        new_name = changes.get("name", locked.name)
        if writes_text:
            kept = revisions.revision_size_if_kept(locked=locked, new_name=new_name, new_files=new_files)
            old_files = paste_files_module.paste_files(locked)
            kept_now = revisions.kept_chars(locked)
            kept_after = 0 if locked.burn_after_read else kept_now + kept
            added = paste_files_module.files_chars(new_files) + kept_after
            # Only an edit that does not grow what the paste stores (files and revisions) may pass
            # a lowered limit: a changed file keeps its old text as a revision, so it always grows.
            _check_quota(
                owner=paste.owner,
                added_chars=added,
                now=now,
                excluding=locked,
                grows=added > paste_files_module.files_chars(old_files) + kept_now,
            )
            if locked.burn_after_read:
                locked.revisions.all().delete()  # burn-after-read pastes keep no history
            else:
                revisions.keep_revision(locked=locked, new_name=new_name, new_files=new_files)
        had_filename = bool(locked.filename)
        locked.name = new_name
        paste_files_module.apply_first_file(locked, new_files)
        if "files" not in changes and not had_filename:
            locked.filename = ""  # still made from the name, as before this paste had files
        if locked.encrypted and not all(is_envelope(file["content"]) for file in new_files):
            raise NotAnEnvelope()
        if "password" in changes:
            locked.password = password_hash
        if "expiration" in changes:
            locked.set_expiration(changes["expiration"], start=now)
        locked.full_clean(validate_unique=False, validate_constraints=False)
        locked.save()
        if "files" in changes:
            paste_files_module.store_more_files(locked, new_files, replacing=True)
    return locked


def _files_after(locked: Paste, changes: dict) -> list[dict]:
    """The paste's files once `changes` apply: `files` replaces them all, `content`/`syntax` edit the first."""
    if "files" in changes:
        return paste_files_module.prepare_files(changes["files"], encrypted=locked.encrypted)
    files = [dict(file) for file in paste_files_module.paste_files(locked)]
    if "content" in changes:
        files[0]["content"] = changes["content"]
    if "syntax" in changes:
        files[0]["syntax"] = changes["syntax"]
    return files


def paste_delete(*, paste: Paste) -> None:
    with transaction.atomic():
        # The row lock a new comment or attachment takes (pastes.comments.comment_create,
        # pastes.attachments.attachment_add): none can be added between the cascade's delete of
        # the comments and attachments and the paste's own.
        locked = Paste.objects.select_for_update().filter(pk=paste.pk).first()
        if locked is not None:
            locked.delete()


def paste_get_visible(*, paste_id: str, user: AbstractBaseUser | None) -> Paste:
    """The paste if `user` may see it and it has not expired (an expired one is deleted)."""
    if not is_paste_id(paste_id):  # also keeps NUL bytes, which PostgreSQL refuses, out of queries
        raise PasteNotFound()
    paste = Paste.objects.visible_to(user).select_related("owner").filter(pk=paste_id).first()
    if paste is None:
        raise PasteNotFound()
    if paste.is_expired():
        Paste.objects.filter(pk=paste.pk).expired().delete()
        raise PasteNotFound()
    return paste


def paste_get_for_owner(*, paste_id: str, user: AbstractBaseUser) -> Paste:
    """The paste for an edit or delete: 404 if `user` cannot see it, 403 if they see it but do not own it."""
    paste = paste_get_visible(paste_id=paste_id, user=user)
    if not paste.is_owned_by(user):
        raise NotOwner()
    return paste


_COLUMNS = ", ".join(connection.ops.quote_name(field.column) for field in Paste._meta.concrete_fields)
# The view counter may be committed without waiting for the disk (PostgreSQL only): a crash
# can lose the last fraction of a second of view counts, and nothing else. The UPDATE only
# touches `views`, and set_config(..., true) lasts until the end of its own transaction, so
# burns, deletes and every other write stay durable.
_ASYNC_COMMIT = "AND set_config('synchronous_commit', 'off', true) IS NOT NULL"


def _count_view(*, paste_id: str, reader: AbstractBaseUser | None, now: datetime) -> Paste | None:
    """Count a view and return the paste, if it is the common case; else None and nothing changes.

    The common case is a shared (not private), unexpired paste without a password that does not burn, read by
    someone other than its owner: one statement then checks, counts and fetches, so parallel
    readers lose no views and each sees its own count. Every other case falls through to the
    locking path of paste_read.
    """
    sql = (
        f"UPDATE {Paste._meta.db_table} SET views = views + 1 "
        "WHERE id = %s AND exposure <> %s AND NOT burn_after_read AND password = %s "
        "AND (expires_at IS NULL OR expires_at > %s)"
    )
    params: list = [paste_id, Paste.Exposure.PRIVATE, "", connection.ops.adapt_datetimefield_value(now)]
    if reader is not None and reader.is_authenticated:
        sql += " AND owner_id <> %s"
        params.append(reader.pk)
    if connection.vendor == "postgresql" and not connection.in_atomic_block:
        # Only when the UPDATE is its own transaction: inside a caller's, it would apply to their writes too.
        sql += " " + _ASYNC_COMMIT
    return next(iter(Paste.objects.raw(f"{sql} RETURNING {_COLUMNS}", params)), None)


def check_paste_password(*, paste: Paste, reader: AbstractBaseUser | None, password: str | None) -> None:
    """Raise unless `reader` may read `paste` as far as its password goes: the owner needs none."""
    if not paste.password_protected or paste.is_owned_by(reader):
        return
    if password is None:
        raise PasswordRequired()
    if not paste.check_password(password):
        raise WrongPassword()


def paste_read(
    *,
    paste_id: str,
    reader: AbstractBaseUser | None,
    count: bool = True,
    robot: bool = False,
    password: str | None = None,
    unlocked: bool = False,
) -> Paste:
    """Read a paste as `reader`: counts a view, and burns a burn-after-read paste, for non-owners.

    With `count` False (HEAD requests) nothing is counted or burned. A `robot` (a crawler or
    link-preview agent, common.bots) counts and burns nothing either, and to it a
    burn-after-read paste does not exist: it is kept for the person the link was sent to.
    A password-protected paste needs its `password` (PasswordRequired, WrongPassword) before
    anything is counted or burned, unless the page already checked it (`unlocked`).
    """
    if robot:
        paste = paste_get_visible(paste_id=paste_id, user=reader)
        if paste.burn_after_read and not paste.is_owned_by(reader):
            raise PasteNotFound()
        if not unlocked:
            check_paste_password(paste=paste, reader=reader, password=password)
        return paste
    if count and is_paste_id(paste_id):
        paste = _count_view(paste_id=paste_id, reader=reader, now=timezone.now())
        if paste is not None:
            return paste
    paste = paste_get_visible(paste_id=paste_id, user=reader)
    if not unlocked:
        check_paste_password(paste=paste, reader=reader, password=password)
    if not count or paste.is_owned_by(reader):
        return paste

    with transaction.atomic():
        # Re-read under a row lock: a parallel reader may have burned or counted it meanwhile.
        locked = Paste.objects.select_for_update().visible_to(reader).unexpired().filter(pk=paste_id).first()
        if locked is None:
            raise PasteNotFound()
        locked.views += 1
        if locked.burn_after_read:
            if locked.file_count > 1:
                paste_files_module.load_files(locked)  # the answer shows them; delete() takes them away
            locked.delete()
            locked.pk = paste_id  # delete() clears it; the response still shows it
            return locked
        Paste.objects.filter(pk=paste_id).update(views=models.F("views") + 1)
    return locked


def user_pastes(*, owner: AbstractBaseUser, viewer: AbstractBaseUser | None) -> models.QuerySet[Paste]:
    return Paste.objects.listed_for(owner, viewer)


def user_pastes_page(
    *, owner: AbstractBaseUser, viewer: AbstractBaseUser | None, page: int, per_page: int
) -> tuple[list[Paste], int]:
    """One page of the pastes `viewer` sees on `owner`'s account, and how many there are in all.

    The ids come from the (owner, -created_at, -id) index, from the nearer end of the list;
    only the page's pastes are fetched with their content.
    """
    pastes = user_pastes(owner=owner, viewer=viewer)
    total = pastes.count()
    rows = page_rows(pastes, (page - 1) * per_page, per_page, total)
    paste_files_module.prefetch_files(rows)
    return rows, total
