"""What the accounts app keeps in the database of its own: failed sign-ins and uploaded avatars (who
is signed in where is allauth's UserSession, accounts/sessions.py)."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class SignInFailures(models.Model):
    """Failed password sign-ins of one account, or from one client address (accounts/signin_limits.py).

    In the database, not in the cache: every server process must see the same count and lock,
    and a lock must outlive a Redis restart.
    """

    class Kind(models.TextChoices):
        ACCOUNT = "account"
        ADDRESS = "address"

    kind = models.CharField(max_length=7, choices=Kind)
    # "user:<pk>" for an existing account, "login:<sha256>" for a name that is none (the tried
    # name itself is not kept: people type passwords into it); an address, or an IPv6 /64.
    key = models.CharField(max_length=80)
    failures = models.PositiveIntegerField(default=0)
    locked_until = models.DateTimeField(null=True, blank=True)
    # The count is forgotten then: a window after the last failure, or after the lock it set.
    forget_at = models.DateTimeField()

    class Meta:
        verbose_name = "failed sign-ins"
        verbose_name_plural = "failed sign-ins"
        constraints = [
            models.UniqueConstraint(fields=["kind", "key"], name="accounts_signinfailures_kind_key_uniq"),
            models.CheckConstraint(condition=Q(kind__in=["account", "address"]), name="accounts_signinfailures_kind"),
        ]
        indexes = [models.Index(fields=["forget_at"], name="accounts_signin_forget_at_idx")]

    def __str__(self) -> str:
        return f"{self.failures} failed sign-in(s) for {self.kind} {self.key}"


class Avatar(models.Model):
    """An avatar image the user uploaded at /accounts/profile/ (accounts/avatars.py).

    The file is in Django's default storage, checked and re-encoded; `name` is its storage name,
    which changes with every upload, so the URL that serves it changes too and may be cached long.
    The user's PasteProfile.avatar holds that URL: B's user object shows it as any other avatar.
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+")
    # Unique: /accounts/avatars/<name> finds the row by it.
    name = models.CharField(max_length=200, unique=True)
    content_type = models.CharField(max_length=20)
    size = models.PositiveIntegerField()
    uploaded_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Avatar of user {self.user_id}: {self.name}"


class Preferences(models.Model):
    """What a person chose for themselves in the account area: the language of the pages (accounts/language.py)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+")
    # A code of settings.LANGUAGES, or empty for the browser's choice. No `choices`: the operator
    # narrows LANGUAGES by the environment, which must not make a migration.
    language = models.CharField(max_length=7, blank=True)

    class Meta:
        verbose_name_plural = "preferences"

    def __str__(self) -> str:
        return f"Preferences of user {self.user_id}"
