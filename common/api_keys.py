"""API keys for the REST interfaces (reports and pastes).

A key is shown once, when it is issued, and only its SHA-256 digest is stored. A
slow password hash buys nothing here: keys carry 256 bits of randomness, so they
cannot be guessed, and a fast digest lets every request find its key with one
indexed lookup. Each interface app has its own concrete model, so a reports key
can never open pastes and vice versa.

A key has a scope: a `write` key (the default, what every key was before scopes)
may do anything its user may; a `read` key only the methods that change nothing,
and each interface refuses the others with a 403 in its own error shape. A key
may also expire: past `expires_at` it is refused exactly like a revoked one, by
the same lookup (its WHERE), so neither costs a request a query.
"""

import hashlib
import secrets
from datetime import date, datetime, time, timedelta
from typing import Self

from django.apps import apps
from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

# Writing last_used_at on every request would turn each read into a write.
LAST_USED_RESOLUTION = timedelta(minutes=1)

# The interfaces that have keys, and each one's model (a shortener key is its "API token").
INTERFACES = {"reports": "reports.ApiKey", "pastes": "pastes.ApiKey", "shortener": "shortener.ApiKey"}

# What a read key may still do: HTTP's safe methods, which no endpoint uses to change anything.
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class Scope(models.TextChoices):
    READ = "read", "Read only"
    WRITE = "write", "Read and write"


def key_model(interface: str) -> type["AbstractApiKey"]:
    return apps.get_model(INTERFACES[interface])


def expiry_on(day: date) -> datetime:
    """When a key that expires on `day` stops working: that day's first instant, in the site's time zone."""
    return timezone.make_aware(datetime.combine(day, time.min))


def digest(raw_key: str) -> str:
    return hashlib.sha256(raw_key.encode()).hexdigest()


class ApiKeyQuerySet(models.QuerySet):
    def active(self) -> Self:
        unexpired = Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now())
        return self.filter(unexpired, revoked_at__isnull=True, user__is_active=True)


class AbstractApiKey(models.Model):
    # Set on each concrete model; starts every raw key so a leaked one is recognisable.
    key_prefix = ""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="%(app_label)s_api_keys",
    )
    name = models.CharField(max_length=100, blank=True, help_text="What the key is for.")
    hint = models.CharField(max_length=16, editable=False, help_text="The first characters of the key.")
    hashed_key = models.CharField(max_length=64, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # Written on every row, old ones included, so that a later change of the default moves no existing key.
    scope = models.CharField(
        max_length=5,
        choices=Scope.choices,
        default=Scope.WRITE,
        help_text="Read only: GET, HEAD and OPTIONS; read and write: everything its user may do.",
    )
    expires_at = models.DateTimeField(
        null=True, blank=True, help_text="From then on the key is refused like a revoked one; empty for never."
    )

    objects = ApiKeyQuerySet.as_manager()

    class Meta:
        abstract = True
        verbose_name = "API key"
        constraints = [
            models.UniqueConstraint(fields=["hashed_key"], name="%(app_label)s_%(class)s_hashed_key_uniq"),
            models.CheckConstraint(condition=Q(scope__in=Scope.values), name="%(app_label)s_%(class)s_scope_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.hint}… ({self.user})"

    @classmethod
    def generate_raw_key(cls) -> str:
        return f"{cls.key_prefix}{secrets.token_urlsafe(32)}"

    @classmethod
    def issue(
        cls, *, user: models.Model, name: str = "", scope: str = Scope.WRITE, expires_at: datetime | None = None
    ) -> tuple[Self, str]:
        """Create a key for `user` and return it with the raw key, which is never stored."""
        raw_key = cls.generate_raw_key()
        api_key = cls(user=user, name=name, scope=scope, expires_at=expires_at)
        api_key.set_raw_key(raw_key)
        api_key.save()
        return api_key, raw_key

    @classmethod
    def authenticate(cls, raw_key: str) -> Self | None:
        if not raw_key:
            return None
        # The digest is unique, so no ORDER BY: first() would add one, and it is built on every request.
        found = cls.objects.active().select_related("user").filter(hashed_key=digest(raw_key))[:1]
        api_key = next(iter(found), None)
        if api_key is not None:
            api_key.touch()
        return api_key

    def set_raw_key(self, raw_key: str) -> None:
        self.hashed_key = digest(raw_key)
        self.hint = raw_key[: len(self.key_prefix) + 6]

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()

    def allows(self, method: str) -> bool:
        """Whether this key may make a request with HTTP `method` (see Scope)."""
        return self.scope == Scope.WRITE or method in READ_METHODS

    def revoke(self) -> None:
        if self.revoked_at is None:
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])

    def touch(self) -> None:
        now = timezone.now()
        if self.last_used_at is None or now - self.last_used_at >= LAST_USED_RESOLUTION:
            type(self).objects.filter(pk=self.pk).update(last_used_at=now)
            self.last_used_at = now
