"""Unique-visit rules: one visit per visitor, per link, per UTC day; bots and prefetches skipped.

A visitor is a keyed hash of the client address and User-Agent whose key changes
every day, so nothing stored can be traced back to an address, and yesterday's
hashes cannot be linked with today's. Recording visits (memory of visitors seen,
buffer, batch writes) is the fast path's job: shortener/fastpath/visits.py.
"""

import datetime
import hashlib
import hmac
from functools import lru_cache

from django.conf import settings
from django.http import HttpRequest
from django.utils import timezone

from common.bots import is_bot
from common.http import client_ip
from shortener.models import Visit

# Speculative loads announce themselves in one of these headers (Sec-Purpose, Purpose, X-Purpose, X-Moz).
PREFETCH_META_KEYS = ("HTTP_SEC_PURPOSE", "HTTP_PURPOSE", "HTTP_X_PURPOSE", "HTTP_X_MOZ")
PREFETCH_WORDS = ("prefetch", "preview", "prerender")

# (link id, visitor hash, UTC day): what the (link, visitor, day) unique constraint holds once.
type VisitKey = tuple[int, str, datetime.date]


def counts_as_visit(request: HttpRequest) -> bool:
    if request.method != "GET":
        return False
    meta = request.META
    for key in PREFETCH_META_KEYS:
        value = meta.get(key)
        if value and any(word in value.lower() for word in PREFETCH_WORDS):
            return False
    return not is_bot(meta.get("HTTP_USER_AGENT", ""))


@lru_cache(maxsize=4)
def _day_key(day: datetime.date, secret: str) -> bytes:
    # What salted_hmac derives from its salt and secret, computed once a day instead of per visit.
    return hashlib.sha256(f"shortener.visitor:{day.isoformat()}{secret}".encode()).digest()


def visitor_hash(request: HttpRequest, day: datetime.date) -> str:
    """The same value as salted_hmac(f"shortener.visitor:{day}", address + "\\n" + UA, secret)."""
    value = f"{client_ip(request)}\n{request.META.get('HTTP_USER_AGENT', '')}"
    key = _day_key(day, settings.SHORTENER_VISITOR_KEY or settings.SECRET_KEY)
    return hmac.new(key, value.encode(), hashlib.sha256).hexdigest()[:32]


def visits_prune(*, keep_days: int = 1) -> int:
    """Delete de-duplication rows of days that can no longer be visited again; return how many."""
    cutoff = timezone.now().date() - datetime.timedelta(days=keep_days)
    deleted, _ = Visit.objects.filter(day__lt=cutoff).delete()
    return deleted
