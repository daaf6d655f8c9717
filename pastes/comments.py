"""Discussions: comments under a paste created with `discussion: true` (as PrivateBin's).

A comment is a nickname or a signed-in user, a text and a time; a reply answers a top-level
comment (one level deep, as PrivateBin shows them). Comments go with their paste (a cascade:
delete, expiry and burn after read alike). Under an end-to-end encrypted paste the browser
encrypts each comment with the paste's key (pastes/static/pastes/comments.js), so the text
stored here is an envelope (pastes.encryption) the server cannot open; the nickname is not
encrypted. Who may read a paste's comments is who may read the paste, password included.
"""

from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from pastes.encryption import ENVELOPE_MESSAGE, is_envelope
from pastes.errors import PasteNotFound, PastesError
from pastes.models import COMMENTS_PER_PASTE_MAX, Comment, Paste

EXPIRY_MARGIN = timedelta(seconds=10)  # see comment_create


# --- Errors (B's {code, message}) ------------------------------------------------------------


class NoDiscussion(PastesError):
    status = 404
    message = gettext_noop("This paste has no discussion: it was created without discussion: true.")


class CommentNotFound(PastesError):
    status = 404
    message = gettext_noop("Comment not found on this paste.")


class NotCommentOwner(PastesError):
    status = 403
    message = gettext_noop("Only the paste's owner or the comment's author may delete this comment.")


class DiscussionFull(PastesError):
    status = 403
    message = f"This discussion is full: a paste takes at most {COMMENTS_PER_PASTE_MAX} comments."


class BadComment(PastesError):
    """A comment body that is well-formed JSON but not a comment this paste can take (400)."""


# --- Services ---------------------------------------------------------------------------------


def threads(paste_id: str) -> list[Comment]:
    """The paste's top-level comments, oldest first, each with `thread_replies` (oldest first)."""
    comments = list(Comment.objects.filter(paste_id=paste_id).select_related("author"))
    replies: dict[int, list[Comment]] = {}
    for comment in comments:
        if comment.parent_id is not None:
            replies.setdefault(comment.parent_id, []).append(comment)
    top = [comment for comment in comments if comment.parent_id is None]
    for comment in top:
        comment.thread_replies = replies.get(comment.pk, [])
    return top


def comment_create(
    *, paste_id: str, author: AbstractBaseUser | None, nickname: str, text: str, parent_id: int | None
) -> Comment:
    """Add a comment to a paste the caller has been allowed to read (views check that first)."""
    with transaction.atomic():
        # The paste's row lock: a parallel delete cannot leave a comment without its paste, and
        # parallel comments cannot pass COMMENTS_PER_PASTE_MAX together.

        # Expired pastes are deleted without that lock (by any read, or purge_expired_pastes): a paste
        # about to expire takes no comment, so that no insert can fall between their two deletes.
        soon = timezone.now() + EXPIRY_MARGIN
        paste = Paste.objects.select_for_update().unexpired(soon).filter(pk=paste_id).first()
        if paste is None:
            raise PasteNotFound()
        if not paste.discussion:
            raise NoDiscussion()
        if paste.encrypted and not is_envelope(text):
            raise BadComment("This paste is end-to-end encrypted, so its comments are too: " + ENVELOPE_MESSAGE)
        parent = None
        if parent_id is not None:
            parent = Comment.objects.filter(paste_id=paste.pk, pk=parent_id).first()
            if parent is None:
                raise BadComment(f"parent_id {parent_id} is not a comment of this paste.")
            if parent.parent_id is not None:
                raise BadComment(
                    f"Replies go one level deep: comment {parent_id} is itself a reply; "
                    f"answer comment {parent.parent_id} instead."
                )
        if Comment.objects.filter(paste_id=paste.pk).count() >= COMMENTS_PER_PASTE_MAX:
            raise DiscussionFull()
        comment = Comment(
            paste=paste,
            parent=parent,
            author=author,
            nickname="" if author is not None else nickname,
            text=text,
            encrypted=paste.encrypted,
        )
        comment.save(force_insert=True)
    return comment


def comment_delete(*, paste_id: str, comment_id: int, user: AbstractBaseUser) -> None:
    """Delete a comment (and its replies): the paste's owner may delete any, an author their own."""
    from pastes.services import paste_get_visible

    paste = paste_get_visible(paste_id=paste_id, user=user)
    comment = Comment.objects.filter(paste_id=paste.pk, pk=comment_id).first()
    if comment is None:
        raise CommentNotFound()
    if not (paste.is_owned_by(user) or comment.author_id == user.pk):
        raise NotCommentOwner()
    comment.delete()
