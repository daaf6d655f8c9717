"""Discussions: comments under a paste created with `discussion: true` (as PrivateBin's).

A comment is a nickname or a signed-in user, a text and a time; a reply answers a top-level
comment (one level deep, as PrivateBin shows them). Comments go with their paste (a cascade:
delete, expiry and burn after read alike). Under an end-to-end encrypted paste the browser
encrypts each comment with the paste's key (pastes/static/pastes/comments.js), so the text
stored here is an envelope (pastes.encryption) the server cannot open; the nickname is not
encrypted. Who may read a paste's comments is who may read the paste, password included.
"""

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone

from pastes.encryption import ENVELOPE_MESSAGE, is_envelope
from pastes.errors import PasteNotFound, PastesError

COMMENT_MAX_CHARS = 10_000  # as stored: an encrypted comment's envelope is ~4/3 of its UTF-8 bytes
NICKNAME_MAX_LENGTH = 50
COMMENTS_PER_PASTE_MAX = 500  # bounds a discussion's page and its JSON (500 comments of 10,000 characters at most)
EXPIRY_MARGIN = timedelta(seconds=10)  # see comment_create


class Comment(models.Model):
    # Django's cascade (Python-level, as the paste's own owner cascade must be) collects the comments
    # and then deletes the paste: a comment inserted in between fails that delete. So a comment is
    # inserted only under the paste's row lock, and deleting a paste takes that lock first
    # (services.paste_delete; burning already does), see comment_create.
    paste = models.ForeignKey("pastes.Paste", on_delete=models.CASCADE, related_name="comments")
    # A reply answers a top-level comment; deleting that comment deletes its replies.
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="replies")
    # A signed-in author is shown by username; an account deleted later leaves its comments anonymous.
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="paste_comments"
    )
    nickname = models.CharField(max_length=NICKNAME_MAX_LENGTH, blank=True)
    text = models.TextField(help_text="The text, or the envelope of an encrypted paste's comment.")
    encrypted = models.BooleanField(default=False, help_text="The text is an envelope under the paste's key.")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(condition=~Q(text=""), name="pastes_comment_text_not_empty"),
            models.CheckConstraint(
                condition=Q(author__isnull=True) | Q(nickname=""), name="pastes_comment_author_or_nickname"
            ),
            models.CheckConstraint(condition=~Q(parent=models.F("id")), name="pastes_comment_not_own_parent"),
        ]
        indexes = [models.Index(fields=["paste", "created_at", "id"], name="pastes_comment_paste_oldest")]

    def __str__(self) -> str:
        return f"Comment {self.pk} on {self.paste_id}"

    @property
    def shown_name(self) -> str:
        if self.author_id is not None:
            return self.author.get_username()
        return self.nickname or "Anonymous"


# --- Errors (B's {code, message}) ------------------------------------------------------------


class NoDiscussion(PastesError):
    status = 404
    message = "This paste has no discussion: it was created without discussion: true."


class CommentNotFound(PastesError):
    status = 404
    message = "Comment not found on this paste."


class NotCommentOwner(PastesError):
    status = 403
    message = "Only the paste's owner or the comment's author may delete this comment."


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
        from pastes.models import Paste

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
