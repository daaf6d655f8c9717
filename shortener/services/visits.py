"""Unique-visit counting: one visit per visitor, per link, per UTC day; bots and prefetches skipped.

A visitor is a keyed hash of the client address and User-Agent whose key changes
every day, so nothing stored can be traced back to an address, and yesterday's
hashes cannot be linked with today's.
"""

import datetime
import re

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.http import HttpRequest
from django.utils import timezone
from django.utils.crypto import salted_hmac

from common.http import client_ip
from shortener.caching import cache
from shortener.models import ShortLink, Visit

# Crawlers, link-preview fetchers (chat apps, social networks) and monitoring tools.
# "(?<!cu)" spares the Cubot phones, whose User-Agent contains "CUBOT".
BOT_USER_AGENT = re.compile(
    r"(?<!cu)bot\b|bot/|crawl|spider|slurp|preview|facebookexternalhit|facebookcatalog|embedly|iframely"
    r"|whatsapp|telegram|discord|slack|skype|mastodon|pleroma|akkoma|misskey|vkshare|linkedin|pinterest"
    r"|lighthouse|headlesschrome|pingdom|uptime|monitor|feedfetcher|mediapartners|google-read-aloud",
    re.IGNORECASE,
)
VISIT_TABLE = Visit._meta.db_table
LINK_TABLE = ShortLink._meta.db_table
# Speculative loads announce themselves in one of these headers.
PREFETCH_HEADERS = ("Sec-Purpose", "Purpose", "X-Purpose", "X-Moz")
PREFETCH_WORDS = ("prefetch", "preview", "prerender")


def counts_as_visit(request: HttpRequest) -> bool:
    if request.method != "GET":
        return False
    for header in PREFETCH_HEADERS:
        value = request.headers.get(header, "").lower()
        if any(word in value for word in PREFETCH_WORDS):
            return False
    return not BOT_USER_AGENT.search(request.headers.get("User-Agent", ""))


def visitor_hash(request: HttpRequest, day: datetime.date) -> str:
    value = f"{client_ip(request)}\n{request.headers.get('User-Agent', '')}"
    secret = settings.SHORTENER_VISITOR_KEY or settings.SECRET_KEY
    return salted_hmac(f"shortener.visitor:{day.isoformat()}", value, secret=secret, algorithm="sha256").hexdigest()[
        :32
    ]


def _seconds_until_tomorrow(now: datetime.datetime) -> int:
    tomorrow = datetime.datetime.combine(now.date() + datetime.timedelta(days=1), datetime.time(), tzinfo=datetime.UTC)
    return int((tomorrow - now).total_seconds()) + 1


def _count_new_visit_postgresql(link_id: int, visitor: str, day: datetime.date) -> bool:
    # One statement: the counter moves only if the (link, visitor, day) row was new.
    # Waiting for the WAL flush would dominate the redirect's cost; a database crash may
    # lose the last fraction of a second of visits, which a visit counter can afford.
    sql = (
        "WITH new_visit AS ("
        f"INSERT INTO {VISIT_TABLE} (link_id, visitor, day) VALUES (%s, %s, %s) "
        "ON CONFLICT DO NOTHING RETURNING link_id) "
        f"UPDATE {LINK_TABLE} SET counter = counter + 1 WHERE id IN (SELECT link_id FROM new_visit)"
    )
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL synchronous_commit TO OFF")
        cursor.execute(sql, [link_id, visitor, day])
        return cursor.rowcount == 1


def _count_new_visit(link_id: int, visitor: str, day: datetime.date) -> bool:
    # bulk_create(ignore_conflicts=True) cannot say whether the row was new; the row
    # count of INSERT … ON CONFLICT DO NOTHING can.
    sql = f"INSERT INTO {VISIT_TABLE} (link_id, visitor, day) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING"
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(sql, [link_id, visitor, connection.ops.adapt_datefield_value(day)])
            if cursor.rowcount != 1:
                return False
        ShortLink.objects.filter(pk=link_id).update(counter=F("counter") + 1)
    return True


def visit_record(*, link_id: int, request: HttpRequest) -> bool:
    """Count this request as a visit of the link if it is a new visitor today; say whether it counted."""
    if not counts_as_visit(request):
        return False
    now = timezone.now()
    day = now.date()
    visitor = visitor_hash(request, day)
    # Repeat visits usually stop here, at one cache operation; the database row below
    # stays the authority when processes do not share a cache.
    if not cache.add(f"shortener:seen:{link_id}:{visitor}:{day}", 1, timeout=_seconds_until_tomorrow(now)):
        return False
    count = _count_new_visit_postgresql if connection.vendor == "postgresql" else _count_new_visit
    try:
        return count(link_id, visitor, day)
    except IntegrityError:  # the link was removed from the database meanwhile
        return False


def visits_prune(*, keep_days: int = 1) -> int:
    """Delete de-duplication rows of days that can no longer be visited again; return how many."""
    cutoff = timezone.now().date() - datetime.timedelta(days=keep_days)
    deleted, _ = Visit.objects.filter(day__lt=cutoff).delete()
    return deleted
