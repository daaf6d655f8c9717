"""Interface B: pastes, the per-user paste profile, and the pastes API keys."""

import secrets
import string
from datetime import datetime, timedelta
from typing import Self

from django.conf import settings
from django.contrib.auth.hashers import check_password, make_password
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.db.models.lookups import Exact, GreaterThanOrEqual, LessThanOrEqual
from django.urls import reverse
from django.utils import timezone

from common.api_keys import AbstractApiKey

PASTE_ID_ALPHABET = string.ascii_letters + string.digits
PASTE_ID_LENGTH = 12
NAME_MIN_LENGTH = 2
NAME_MAX_LENGTH = 100
SYNTAX_MAX_LENGTH = 50
FILENAME_MAX_LENGTH = 255


def generate_paste_id() -> str:
    return "".join(secrets.choice(PASTE_ID_ALPHABET) for _ in range(PASTE_ID_LENGTH))


def is_paste_id(value: str) -> bool:
    return len(value) == PASTE_ID_LENGTH and all(char in PASTE_ID_ALPHABET for char in value)


def validate_syntax(value: str) -> None:
    from pastes.highlighting import is_known_syntax

    if value and not is_known_syntax(value):
        raise ValidationError(
            "Unknown syntax %(value)s: use a Pygments language name such as python, json or bash.",
            code="unknown_syntax",
            params={"value": value},
        )


def default_max_paste_chars() -> int:
    # A callable, so that changing the setting changes the default without a migration.
    return settings.PASTES_DEFAULT_MAX_CHARS


def default_max_attachment_bytes() -> int:
    return settings.PASTES_DEFAULT_ATTACHMENT_QUOTA_BYTES


def validate_badges(value: object) -> None:
    if not isinstance(value, list) or not all(isinstance(badge, str) and badge for badge in value):
        raise ValidationError("Badges must be a list of non-empty strings.", code="invalid_badges")


class ApiKey(AbstractApiKey):
    """A key for interface B (`Authorization: <key>`)."""

    key_prefix = "pst_"

    class Meta(AbstractApiKey.Meta):
        verbose_name = "pastes API key"


class PasteQuerySet(models.QuerySet):
    def expired(self, now: datetime | None = None) -> Self:
        return self.filter(expires_at__lte=now or timezone.now())

    def unexpired(self, now: datetime | None = None) -> Self:
        return self.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now or timezone.now()))

    def visible_to(self, user: models.Model | None) -> Self:
        """Pastes `user` may open by id: their own, and anyone's public or unlisted ones."""
        shared = ~Q(exposure=Paste.Exposure.PRIVATE)
        if user is not None and user.is_authenticated:
            return self.filter(shared | Q(owner=user))
        return self.filter(shared)

    def listed_for(self, owner: models.Model, viewer: models.Model | None) -> Self:
        """The pastes of `owner` shown on their account to `viewer`, newest first.

        Others see public pastes only, and not burn-after-read or password-protected ones: a
        listing carries the content, so listing such a paste would let anyone read it without
        burning it or giving its password.
        """
        pastes = self.filter(owner=owner).unexpired()
        if viewer is None or viewer.pk != owner.pk:
            pastes = pastes.filter(exposure=Paste.Exposure.PUBLIC, burn_after_read=False, password="")
        return pastes.order_by("-created_at", "-pk")

    def total_chars(self) -> int:
        return self.aggregate(total=models.Sum("content_chars"))["total"] or 0


class PasteExpiration(models.TextChoices):
    # Stored as Pastebin's `api_paste_expire_date` codes; the API speaks the labels.
    TEN_MINUTES = "10M", "10 minutes"
    ONE_HOUR = "1H", "1 hour"
    ONE_DAY = "1D", "1 day"
    ONE_WEEK = "1W", "1 week"
    TWO_WEEKS = "2W", "2 weeks"
    ONE_MONTH = "1M", "1 month"
    SIX_MONTHS = "6M", "6 months"
    ONE_YEAR = "1Y", "1 year"
    NEVER = "N", "Never"


class PasteExposure(models.TextChoices):
    PUBLIC = "public", "public"
    UNLISTED = "unlisted", "unlisted"
    PRIVATE = "private", "private"


class Paste(models.Model):
    # Nested names for callers (Paste.Exposure.PUBLIC); defined outside so Meta can use them.
    Expiration = PasteExpiration
    Exposure = PasteExposure

    id = models.CharField(
        primary_key=True,
        max_length=PASTE_ID_LENGTH,
        default=generate_paste_id,
        editable=False,
        help_text="12 random characters from [A-Za-z0-9].",
    )
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pastes")
    name = models.CharField(max_length=NAME_MAX_LENGTH)
    content = models.TextField()
    # Kept by the database, so it always equals the content's length: the quota check sums
    # it rather than measuring the text of every paste the owner has.
    content_chars = models.GeneratedField(
        expression=Length("content"), output_field=models.PositiveIntegerField(), db_persist=True
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)
    expiration = models.CharField(max_length=3, choices=Expiration.choices, default=Expiration.NEVER)
    expires_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the paste stops being served; empty for Never. Set from the expiration at create or edit.",
    )
    exposure = models.CharField(max_length=8, choices=Exposure.choices, default=Exposure.PUBLIC)
    views = models.PositiveIntegerField(default=0)
    burn_after_read = models.BooleanField(default=False, help_text="Deleted by the first read of anyone but the owner.")
    syntax = models.CharField(
        max_length=SYNTAX_MAX_LENGTH,
        blank=True,
        validators=[validate_syntax],
        help_text="Language of the content for the HTML page's highlighting (a Pygments name, e.g. python); "
        "empty: guessed.",
    )
    encrypted = models.BooleanField(
        default=False,
        help_text="The content is ciphertext (pastes.encryption's envelope) that only a holder of the link's "
        "#key can read; the server never has the key.",
    )
    discussion = models.BooleanField(
        default=False, help_text="Readers may comment under the paste (pastes.comments); closed when off."
    )
    # A Django password hash (django.contrib.auth.hashers), or empty for none.
    password = models.CharField(
        max_length=128, blank=True, help_text="Hash of the password readers must give; empty: no password."
    )

    # Several files (issue 47): the first file is this row (content, syntax, filename), so a
    # one-file paste is read in one query; files 2… are PasteFile rows, fetched only when
    # file_count says there are some (pastes.files).
    filename = models.CharField(
        max_length=FILENAME_MAX_LENGTH, blank=True, help_text="The first file's name; empty: made from the name."
    )
    file_count = models.PositiveSmallIntegerField(default=1, help_text="How many files the paste holds.")
    # Attachments (issue 47): counted here, under the paste's row lock, so that a read of a paste
    # without any (nearly all) makes no query for them (pastes.attachments.attachments_of).
    attachment_count = models.PositiveIntegerField(default=0, help_text="How many files are attached to the paste.")

    objects = PasteQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(Exact(Length("id"), PASTE_ID_LENGTH)),
                name="pastes_paste_id_length",
            ),
            models.CheckConstraint(
                condition=Q(GreaterThanOrEqual(Length("name"), NAME_MIN_LENGTH))
                & Q(LessThanOrEqual(Length("name"), NAME_MAX_LENGTH)),
                name="pastes_paste_name_length",
            ),
            models.CheckConstraint(condition=~Q(content=""), name="pastes_paste_content_not_empty"),
            models.CheckConstraint(
                condition=Q(expiration__in=PasteExpiration.values), name="pastes_paste_expiration_valid"
            ),
            models.CheckConstraint(condition=Q(exposure__in=PasteExposure.values), name="pastes_paste_exposure_valid"),
            models.CheckConstraint(
                condition=Q(expiration=PasteExpiration.NEVER, expires_at__isnull=True)
                | (~Q(expiration=PasteExpiration.NEVER) & Q(expires_at__isnull=False)),
                name="pastes_paste_expires_at_matches_expiration",
            ),
        ]
        indexes = [
            # The account's list: a user's pastes, newest first, ending in its tiebreak (-id) so a
            # page's ids come from the index alone. content_chars is in the key (rather than
            # INCLUDE, which SQLite lacks) so that the quota check sums it from the index alone.
            models.Index(fields=["owner", "-created_at", "-id", "content_chars"], name="pastes_paste_owner_newest"),
            # The admin's list: every paste, newest first (Meta.ordering plus the admin's -pk tiebreak).
            models.Index(fields=["-created_at", "-id"], name="pastes_paste_newest"),
            # purge_expired_pastes.
            models.Index(fields=["expires_at"], name="pastes_paste_expires_at"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.id})"

    def get_absolute_url(self) -> str:
        return reverse("pastes:paste-detail", kwargs={"paste_id": self.id})

    @classmethod
    def expiration_from_label(cls, label: str) -> "Paste.Expiration | None":
        return next((choice for choice in cls.Expiration if choice.label == label), None)

    def set_expiration(self, expiration: "Paste.Expiration", *, start: datetime) -> None:
        """Set the label and the deadline it means, counted from `start` (creation or edit time)."""
        self.expiration = expiration
        duration = EXPIRATION_DURATIONS[expiration]
        self.expires_at = None if duration is None else start + duration

    def is_expired(self, now: datetime | None = None) -> bool:
        return self.expires_at is not None and self.expires_at <= (now or timezone.now())

    def is_owned_by(self, user: models.Model | None) -> bool:
        return user is not None and user.is_authenticated and self.owner_id == user.pk

    @property
    def password_protected(self) -> bool:
        return bool(self.password)

    def set_password(self, raw_password: str) -> None:
        """Hash `raw_password` with the site's password hashers; an empty one removes the password."""
        self.password = make_password(raw_password) if raw_password else ""

    def check_password(self, raw_password: str) -> bool:
        return bool(self.password) and check_password(raw_password, self.password)


# Months are 30 days and a year 365, as in dpaste and PrivateBin.
EXPIRATION_DURATIONS: dict[str, timedelta | None] = {
    Paste.Expiration.TEN_MINUTES: timedelta(minutes=10),
    Paste.Expiration.ONE_HOUR: timedelta(hours=1),
    Paste.Expiration.ONE_DAY: timedelta(days=1),
    Paste.Expiration.ONE_WEEK: timedelta(weeks=1),
    Paste.Expiration.TWO_WEEKS: timedelta(weeks=2),
    Paste.Expiration.ONE_MONTH: timedelta(days=30),
    Paste.Expiration.SIX_MONTHS: timedelta(days=180),
    Paste.Expiration.ONE_YEAR: timedelta(days=365),
    Paste.Expiration.NEVER: None,
}


class PasteProfile(models.Model):
    """What the pastes API shows about a user beyond Django's User, and their quota."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="paste_profile")
    avatar = models.URLField(blank=True, help_text="URL of the user's avatar image; empty shows as null.")
    bio = models.TextField(blank=True, max_length=2000)
    badges = models.JSONField(default=list, blank=True, validators=[validate_badges], help_text='e.g. ["staff"]')
    max_paste_chars = models.PositiveIntegerField(
        default=default_max_paste_chars,
        help_text="Most characters the user's pastes may hold in total.",
    )
    max_attachment_bytes = models.PositiveBigIntegerField(
        default=default_max_attachment_bytes,
        help_text="Most bytes the user's paste attachments may hold in total.",
    )

    class Meta:
        verbose_name = "paste profile"

    def __str__(self) -> str:
        return f"Paste profile of {self.user}"

    @classmethod
    def for_user(cls, user: models.Model) -> "PasteProfile":
        """The user's profile, or an unsaved one with the defaults if they have none yet."""
        try:
            return user.paste_profile
        except cls.DoesNotExist:
            return cls(user=user)


# Registered with the app here; the model has a module of its own (pastes/attachment_models.py).
from pastes.attachment_models import Attachment  # noqa: E402, F401


class OwnerStoredChars(models.Model):
    """The characters an owner stores, as the quota counts them, kept by database triggers
    (migration 0012_owner_stored_chars): every paste's content, its files 2… and its kept revisions.

    A create read the sum of every paste, file and revision of its owner (5 ms for 7,650
    pastes, growing with them; bench/README.md, "Where the time went"); this is one row. The
    triggers fire on every insert, delete and change of content or owner, whoever makes them.
    """

    owner = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.DB_CASCADE, primary_key=True, related_name="+"
    )
    chars = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.owner_id}: {self.chars}"


# --- Files 2… of a paste and the revisions an edit keeps (issue 47) ---------------------------
# The first file lives on the Paste row itself (content, syntax, filename), so reading a one-file
# paste stays one query; PasteFile rows hold files 2… (position 2 up) and are read only when
# Paste.file_count says there are some (pastes.files). A revision is a snapshot of the files as
# they were before an edit, kept as JSON: it is only ever read whole, never queried by its inside.


class PasteFile(models.Model):
    paste = models.ForeignKey("Paste", on_delete=models.CASCADE, related_name="more_files")
    position = models.PositiveSmallIntegerField(help_text="2 for the paste's second file, and so on.")
    filename = models.CharField(max_length=FILENAME_MAX_LENGTH)
    content = models.TextField()
    content_chars = models.GeneratedField(
        expression=Length("content"), output_field=models.PositiveIntegerField(), db_persist=True
    )
    syntax = models.CharField(max_length=SYNTAX_MAX_LENGTH, blank=True)

    class Meta:
        ordering = ["paste", "position"]
        constraints = [
            models.UniqueConstraint(fields=["paste", "position"], name="pastes_pastefile_unique_position"),
            models.UniqueConstraint(fields=["paste", "filename"], name="pastes_pastefile_unique_filename"),
            models.CheckConstraint(condition=Q(position__gte=2), name="pastes_pastefile_position_after_first"),
            models.CheckConstraint(condition=~Q(filename=""), name="pastes_pastefile_filename_not_empty"),
            models.CheckConstraint(condition=~Q(content=""), name="pastes_pastefile_content_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.filename} in {self.paste_id}"


class PasteRevision(models.Model):
    """The paste's files as they were before edit number `number`; `files` is null once removed."""

    paste = models.ForeignKey("Paste", on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField(help_text="1 for the paste as first created, then one per edit.")
    created_at = models.DateTimeField(default=timezone.now, help_text="When this version was written.")
    name = models.CharField(max_length=100)
    # [{"filename", "content", "syntax"}, …]; null: the owner removed this revision's content.
    files = models.JSONField(null=True, blank=True)
    size = models.PositiveIntegerField(help_text="Characters of content over every file (counted by the quota).")
    changed = models.JSONField(default=list, help_text="Filenames the next version added, removed or changed.")

    class Meta:
        ordering = ["paste", "number"]
        constraints = [
            models.UniqueConstraint(fields=["paste", "number"], name="pastes_pasterevision_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="pastes_pasterevision_number_positive"),
        ]

    def __str__(self) -> str:
        return f"Revision {self.number} of {self.paste_id}"

    @property
    def removed(self) -> bool:
        return self.files is None


# --- Discussions (issue 47): comments under a paste with `discussion: true` -----------------
# Their rules (who may comment, encryption, limits) are in pastes.comments.

COMMENT_MAX_CHARS = 10_000  # as stored: an encrypted comment's envelope is ~4/3 of its UTF-8 bytes
NICKNAME_MAX_LENGTH = 50
COMMENTS_PER_PASTE_MAX = 500  # bounds a discussion's page and its JSON (500 comments of 10,000 characters at most)


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
