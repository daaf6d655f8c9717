"""Limits on guessing passwords that spare the innocent: failed sign-ins count, successes do not.

Every password sign-in (the site's /accounts/login/, the shortener's /s/login, the admin's, and
anything else calling django.contrib.auth.authenticate with a password) first meets
SignInLimitGuard (accounts/backends.py), the first authentication backend. While the account
or the client address is locked it raises PermissionDenied: Django then asks no other backend,
so no password is checked, and the answer and its time are the same whether the password was
right or wrong. Django sends user_login_failed for every sign-in no backend accepted; the
receiver below counts it, once for the account and once for the address:

- ACCOUNTS_SIGNIN_ACCOUNT_FAILURES failures of one account lock its password sign-in for
  ACCOUNTS_SIGNIN_LOCK_SECONDS; each further failure doubles the lock, up to
  ACCOUNTS_SIGNIN_LOCK_MAX_SECONDS. A name that is no account is counted and locked the same
  way, so that the answers never tell which names exist.
- ACCOUNTS_SIGNIN_ADDRESS_FAILURES failures from one address, whatever the accounts, lock the
  address the same way: one client trying many accounts is slowed.
- A count is forgotten ACCOUNTS_SIGNIN_WINDOW seconds after its last failure, or after the end
  of the lock it set. Tries refused by a lock are not counted: they checked no password.
- Signing in clears the account's count (not the address's: a client with one account of its
  own must not wipe its failures on others); so does setting a new password (a reset by mail).

An office behind one address is spared: its people's successful sign-ins cost nothing, and its
typos are far below the address's budget.
"""

import hashlib
import ipaddress
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.db import transaction
from django.db.models import Max, Q
from django.dispatch import receiver
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from accounts.models import SignInFailures
from common.http import client_ip
from common.pruning import Schedule

Kind = SignInFailures.Kind
# Forgotten counts are taken up again by their key's next failure; the others are deleted by the
# first failure of each PRUNING period (per process).
PRUNING = Schedule(timedelta(hours=6))
# Beyond this the doubling lock is at its cap anyway (2**30 seconds are 34 years).
MAX_DOUBLINGS = 30


def locked_message(seconds: int) -> str:
    """What a sign-in page says while locked (the shortener's /s/login keeps Lstu's "Too many login attempts…")."""
    return ngettext(
        "Too many failed sign-in attempts. Please retry in {seconds} second, or reset your password.",
        "Too many failed sign-in attempts. Please retry in {seconds} seconds, or reset your password.",
        seconds,
    ).format(seconds=seconds)


def tried_login(credentials: dict) -> str:
    """The name a sign-in tried: Django's and LDAP's `username`, or allauth's `username` or `email`."""
    login = credentials.get("username") or credentials.get("email") or ""
    return login.strip() if isinstance(login, str) else ""


def account_key(login: str) -> str:
    """The account a name signs in to ("user:<pk>", by username or email, any case), else the name's digest.

    One account tried by its username and by its email address, in any case, is one count.
    """
    users = get_user_model()._default_manager
    lookup = Q(**{f"{get_user_model().USERNAME_FIELD}__iexact": login})
    if "@" in login:
        lookup |= Q(email__iexact=login)
    found = list(users.filter(lookup).values_list("pk", flat=True)[:2]) if login else []
    if len(found) == 1:
        return f"user:{found[0]}"
    return "login:" + hashlib.sha256(login.casefold().encode()).hexdigest()


def address_key(request: HttpRequest) -> str:
    """The client's address; for IPv6 its /64, the block one subscriber is usually given."""
    address = client_ip(request)
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:80]
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def keys_of(request: HttpRequest | None, credentials: dict) -> dict[str, str]:
    keys = {Kind.ACCOUNT: account_key(tried_login(credentials))}
    if request is not None:
        keys[Kind.ADDRESS] = address_key(request)
    return keys


def locked_for(keys: dict[str, str], now: datetime | None = None) -> int | None:
    """Seconds until the last of these keys' locks ends, or None if none is locked."""
    now = now or timezone.now()
    match = Q()
    for kind, key in keys.items():
        match |= Q(kind=kind, key=key)
    until = SignInFailures.objects.filter(match, locked_until__gt=now).aggregate(Max("locked_until"))
    if until["locked_until__max"] is None:
        return None
    return max(1, int((until["locked_until__max"] - now).total_seconds() + 0.999))


def lock_duration(extra_failures: int) -> timedelta:
    """The lock set by the threshold's failure (0) and by each one past it (doubling), capped."""
    seconds = settings.ACCOUNTS_SIGNIN_LOCK_SECONDS * 2 ** min(extra_failures, MAX_DOUBLINGS)
    return timedelta(seconds=min(seconds, settings.ACCOUNTS_SIGNIN_LOCK_MAX_SECONDS))


def thresholds() -> dict[str, int]:
    return {
        Kind.ACCOUNT: settings.ACCOUNTS_SIGNIN_ACCOUNT_FAILURES,
        Kind.ADDRESS: settings.ACCOUNTS_SIGNIN_ADDRESS_FAILURES,
    }


def count_failure(kind: str, key: str, now: datetime | None = None) -> SignInFailures:
    """Add one failure to the key's count, and lock it at the threshold; exact under concurrency.

    The row is made if missing, then locked (SELECT … FOR UPDATE on PostgreSQL; SQLite's atomic
    blocks take its one write lock at BEGIN IMMEDIATE), so parallel failures count one by one.
    """
    now = now or timezone.now()
    window = timedelta(seconds=settings.ACCOUNTS_SIGNIN_WINDOW)
    threshold = thresholds()[kind]
    with transaction.atomic():
        SignInFailures.objects.bulk_create([SignInFailures(kind=kind, key=key, forget_at=now)], ignore_conflicts=True)
        row = SignInFailures.objects.select_for_update().get(kind=kind, key=key)
        if row.forget_at <= now:
            row.failures, row.locked_until = 0, None
        row.failures += 1
        if row.failures >= threshold:
            row.locked_until = max(row.locked_until or now, now + lock_duration(row.failures - threshold))
        row.forget_at = max(now, row.locked_until or now) + window
        row.save(update_fields=["failures", "locked_until", "forget_at"])
    if PRUNING.due():
        SignInFailures.objects.filter(forget_at__lt=now).delete()
    return row


def forget_account(user: object) -> None:
    SignInFailures.objects.filter(kind=Kind.ACCOUNT, key=f"user:{user.pk}").delete()


@receiver(user_login_failed, dispatch_uid="accounts.signin_limits.count")
def count_failed_sign_in(sender: object, credentials: dict, request: HttpRequest | None = None, **kwargs) -> None:
    # Only password sign-ins; and a try the guard refused (it says so on the request) checked no password.
    if "password" not in credentials or getattr(request, "signin_locked_for", None) is not None:
        return
    for kind, key in keys_of(request, credentials).items():
        count_failure(kind, key)


@receiver(user_logged_in, dispatch_uid="accounts.signin_limits.forget")
def forget_on_sign_in(sender: object, request: HttpRequest | None, user: object, **kwargs) -> None:
    forget_account(user)


class ForgetFailuresOnNewPassword:
    """Not a check: Django tells each password validator of every new password set (a reset by mail,
    a change, the admin's form, `changepassword`), which is the moment the account's lock must go."""

    def validate(self, password: str, user: object = None) -> None:
        return None

    def password_changed(self, password: str, user: object = None) -> None:
        if user is not None and user.pk is not None:
            forget_account(user)

    def get_help_text(self) -> str:
        return gettext("Setting a new password lifts a lock set by failed sign-ins.")
