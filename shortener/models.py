"""Short links and the visits that count towards their unique-visit counter."""

import hashlib
import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone

from common.api_keys import AbstractApiKey

# No look-alikes (0/O/o, 1/l/I/i), so a code read aloud or off paper is typed right.
CODE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ"
CODE_MAX_LENGTH = 64
URL_MAX_LENGTH = 2048
# The generated links that "same user, same URL" gives back (the owner/URL constraint's condition).
DEDUPLICATED_LINKS = {
    "is_custom": False,
    "deleted_at__isnull": True,
    "expires_at__isnull": True,
    "max_visits__isnull": True,
}


class ShortLink(models.Model):
    code = models.CharField(max_length=CODE_MAX_LENGTH, help_text="Final path segment of the short URL.")
    url = models.URLField(max_length=URL_MAX_LENGTH, help_text="Target URL.")
    # Lets the "same user, same URL" lookup use an index whatever the URL's length.
    url_digest = models.CharField(max_length=64, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="short_links",
    )
    is_custom = models.BooleanField(default=False, help_text="The code was chosen by the owner.")
    counter = models.PositiveBigIntegerField(default=0, help_text="Unique visits: one per visitor per day.")
    created_at = models.DateTimeField(default=timezone.now)
    # Deleted links keep their code, so a spammer's code cannot be taken over by someone else.
    deleted_at = models.DateTimeField(null=True, blank=True)
    # Lifetime: past either limit the link answers 404 but stays, with its statistics.
    expires_at = models.DateTimeField(null=True, blank=True, help_text="The link stops redirecting then.")
    max_visits = models.PositiveIntegerField(
        null=True, blank=True, help_text="The link stops redirecting once its unique visits reach this."
    )

    class Meta:
        verbose_name = "short link"
        verbose_name_plural = "short links"
        constraints = [
            models.UniqueConstraint(fields=["code"], name="shortener_shortlink_code_uniq"),
            # One generated code per user and URL: a second request gets the first code back.
            # Links with a lifetime are each their own, so they are left out.
            models.UniqueConstraint(
                fields=["owner", "url_digest"],
                condition=Q(is_custom=False, deleted_at__isnull=True, expires_at__isnull=True, max_visits__isnull=True),
                name="shortener_shortlink_owner_url_uniq",
            ),
            models.CheckConstraint(condition=~Q(code=""), name="shortener_shortlink_code_not_empty"),
            models.CheckConstraint(
                condition=Q(max_visits__isnull=True) | Q(max_visits__gte=1), name="shortener_shortlink_max_visits_min"
            ),
        ]
        indexes = [
            # Own links and the admin list, most visited first.
            models.Index(fields=["owner", "-counter"], name="shortener_shortlink_owner_idx"),
            models.Index(fields=["-counter", "-created_at"], name="shortener_shortlink_top_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.code} ---> {self.url}"

    def save(self, *args, **kwargs) -> None:
        self.url_digest = self.digest(self.url)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "url" in update_fields:
            kwargs["update_fields"] = {*update_fields, "url_digest"}
        super().save(*args, **kwargs)

    def clean(self) -> None:
        # url_digest is not a form field, so model forms (the admin) skip the owner/URL
        # constraint that uses it; check it here so an edit gets a message, not a 500.
        self.url_digest = self.digest(self.url)
        duplicate = (
            not self.is_custom
            and self.deleted_at is None
            and not self.has_lifetime
            and self.owner_id is not None
            and ShortLink.objects.filter(owner_id=self.owner_id, url_digest=self.url_digest, **DEDUPLICATED_LINKS)
            .exclude(pk=self.pk)
            .exists()
        )
        if duplicate:
            raise ValidationError({"url": "This owner already has a generated short link to this URL."})

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None

    @property
    def has_lifetime(self) -> bool:
        return self.expires_at is not None or self.max_visits is not None

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()

    @property
    def is_used_up(self) -> bool:
        return self.max_visits is not None and self.counter >= self.max_visits

    @staticmethod
    def digest(url: str) -> str:
        return hashlib.sha256(url.encode()).hexdigest()

    @classmethod
    def generate_code(cls) -> str:
        return "".join(secrets.choice(CODE_ALPHABET) for _ in range(settings.SHORTENER_CODE_LENGTH))


class Visit(models.Model):
    """One visitor seen on one link on one UTC day: the row that makes the counter unique."""

    link = models.ForeignKey(ShortLink, on_delete=models.CASCADE, related_name="+")
    # Keyed hash of address and User-Agent with a salt that changes every day; no raw address.
    visitor = models.CharField(max_length=32)
    day = models.DateField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["link", "visitor", "day"], name="shortener_visit_once_per_day"),
        ]
        indexes = [
            # Pruning old days.
            models.Index(fields=["day"], name="shortener_visit_day_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.visitor} on {self.day}"


class LinkCacheVersion(models.Model):
    """One row whose number goes up with every change or removal of a link (shortener/fastpath/links.py).

    Each process keeps its own code → link copies for the redirect; reading this row
    (about once a second) is how a process learns that another one changed a link.
    It is in the database because that is what every process shares, Redis or not.
    """

    version = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(pk=1), name="shortener_linkcacheversion_single_row"),
        ]

    def __str__(self) -> str:
        return f"links version {self.version}"


class ApiKey(AbstractApiKey):
    """A personal token for the shortener (`Authorization: Bearer shr_…`): shortening, own stats, deleting.

    It acts as its user, never in admin mode: admin rights stay with the admin password.
    """

    key_prefix = "shr_"

    class Meta(AbstractApiKey.Meta):
        verbose_name = "shortener API token"


class LinkImport(models.Model):
    """The progress of one import (POST /import), which the importing page polls.

    In the database rather than the cache: the poll may reach another process than the
    import, and the database is what every process shares, Redis or not.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # Chosen by the page before it sends the file, so that it can ask for the progress meanwhile.
    key = models.CharField(max_length=64)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    created = models.PositiveIntegerField(default=0)
    refused = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="shortener_linkimport_user_key_uniq"),
        ]

    def __str__(self) -> str:
        return f"import {self.key} of {self.user_id}: {self.done}/{self.total}"


class LimitCounter(models.Model):
    """A login limit's, an admin password ban's or an anonymous-shortening ban's count (services/counters.py).

    In the database, not only in Redis: a ban must hold in every process while Redis is down
    (each process would count on its own) and after Redis restarts without its data.
    """

    key = models.CharField(max_length=200, unique=True)
    count = models.PositiveIntegerField()
    # The count lives until then; a count past it starts again from one.
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(count__gte=1), name="shortener_limitcounter_count_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.key}: {self.count} until {self.expires_at}"
