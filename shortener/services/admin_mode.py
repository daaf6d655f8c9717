"""Admin mode: a session flag set by the admin password, with a ban after repeated bad passwords."""

import hashlib
import hmac
import time
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.hashers import check_password, identify_hasher
from django.http import HttpRequest
from django.utils import timezone
from django.utils.timesince import timesince
from django.utils.translation import gettext, ngettext

from common import counters
from common.http import client_ip
from shortener import messages
from shortener.errors import Failure
from shortener.tokens import has_token

SESSION_KEY = "shortener_admin_until"
SHA256_HEX_LENGTH = 64


class BadAdminPassword(Failure):
    """A wrong admin password, with how many more the address may try before its ban."""

    def __init__(self, *, tries_left: int) -> None:
        super().__init__(messages.BAD_PASSWORD, 403)
        self.tries_left = tries_left

    def page_message(self) -> str:
        """What the page says (in the reader's language; JSON keeps Lstu's BAD_PASSWORD)."""
        ban = timesince(timezone.now() - timedelta(seconds=settings.SHORTENER_ADMIN_BAN_SECONDS), depth=1)
        if self.tries_left <= 0:
            return gettext("Bad password. No tries left: this address is banned for {ban}.").format(ban=ban)
        return ngettext(
            "Bad password. {tries} more try before this address is banned for {ban}.",
            "Bad password. {tries} more tries before this address is banned for {ban}.",
            self.tries_left,
        ).format(tries=self.tries_left, ban=ban)


def admin_mode_available() -> bool:
    return bool(settings.SHORTENER_ADMINPWD or settings.SHORTENER_HASHED_ADMINPWD)


def is_admin(request: HttpRequest) -> bool:
    # Removing the password settings ends admin mode in every session at once.
    if not admin_mode_available() or has_token(request):
        return False  # admin rights stay with admin mode, never with a token
    until = request.session.get(SESSION_KEY)
    return isinstance(until, int | float) and until > time.time()


def password_matches(password: str) -> bool:
    """Compare with SHORTENER_ADMINPWD, or SHORTENER_HASHED_ADMINPWD (Django hash or Lstu's SHA-256 hex)."""
    plain = settings.SHORTENER_ADMINPWD
    if plain and hmac.compare_digest(password.encode(), plain.encode()):
        return True
    hashed = settings.SHORTENER_HASHED_ADMINPWD
    if not hashed:
        return False
    try:
        identify_hasher(hashed)
    except ValueError:
        digest = hashlib.sha256(password.encode()).hexdigest()
        return len(hashed) == SHA256_HEX_LENGTH and hmac.compare_digest(digest, hashed.lower())
    return check_password(password, hashed)


def _strikes_key(request: HttpRequest) -> str:
    return f"shortener:admin-strikes:{client_ip(request)}"


def admin_login(request: HttpRequest, password: str) -> None:
    """Enter admin mode, or raise the failure to report.

    Every attempt takes a strike before the password is checked, so parallel guesses
    cannot slip past the limit; a right password clears the strikes. The strikes
    expire an hour after the last attempt, so a client that keeps trying stays banned.
    """
    if not admin_mode_available():
        raise Failure(messages.ADMIN_UNAVAILABLE, 403)
    key = _strikes_key(request)
    ban = settings.SHORTENER_ADMIN_BAN_SECONDS
    # In the database (common/counters.py): the ban holds while Redis is down or restarted.
    strikes = counters.hit(key, seconds=ban, prolong=True).value
    if strikes > settings.SHORTENER_ADMIN_MAX_BAD_PASSWORDS:
        raise Failure(messages.TOO_MANY_BAD_PASSWORDS, 429, retry_after=ban)
    if not password_matches(password):
        raise BadAdminPassword(tries_left=settings.SHORTENER_ADMIN_MAX_BAD_PASSWORDS - strikes)
    counters.clear(key)
    # A new session key, so a session id known before entering admin mode is worthless after.
    request.session.cycle_key()
    request.session[SESSION_KEY] = time.time() + settings.SHORTENER_ADMIN_SESSION_SECONDS


def admin_logout(request: HttpRequest) -> None:
    request.session.pop(SESSION_KEY, None)
