"""/accounts/export/: everything a user has, as one JSON file, streamed.

GET shows what the file holds; POST (the page's button, so no link prefetcher or cross-site
page starts an export) answers the download. Each kind of thing is read by one query, through
a database cursor in chunks (`iterator(chunk_size=…)`) and written out as it is read, so the
memory it takes stays flat however many items there are (bench/account_export.py) and the
number of queries does not grow with them: a link's per-day visits come from one query over
all the user's links, in the same order as the links, and are merged as both are read.
Secrets stay out: no API key digest, no paste, link, report or audit password hash (only
whether there is one).
"""

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

import orjson
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from common.api_keys import INTERFACES, key_model
from pastes.models import Paste, PasteProfile
from reports.models import Audit, Project, Report
from shortener.models import DailyVisits, ShortLink

FORMAT = "webtools-account-export/1"
CHUNK_SIZE = 2000
# Bytes gathered before they are sent: fewer, larger writes than one per item.
FLUSH_BYTES = 64 * 1024

PASTE_FIELDS = ("id", "name", "content", "syntax", "exposure", "expiration", "expires_at", "burn_after_read",
                "encrypted", "views", "created_at", "updated_at")  # fmt: skip
LINK_FIELDS = ("id", "code", "url", "is_custom", "counter", "created_at", "deleted_at", "expires_at", "max_visits")
PROJECT_FIELDS = ("id", "name", "budget", "alert_email", "schedule", "report_count", "created_at", "next_run_at",
                  "last_run_at")  # fmt: skip
REPORT_FIELDS = ("id", "project_id", "audit_id", "url", "status", "result", "score", "score_seo", "score_performance",
                 "score_security", "score_accessibility", "score_miscellaneous", "results", "rendering", "error",
                 "privacy", "generated_at", "created_at", "updated_at")  # fmt: skip
AUDIT_FIELDS = ("id", "project_id", "url", "status", "error", "max_pages", "pages_found", "pages_done", "pages_failed",
                "summary", "privacy", "created_at", "started_at", "finished_at")  # fmt: skip
KEY_FIELDS = ("id", "name", "hint", "scope", "created_at", "last_used_at", "expires_at", "revoked_at")


def _dumps(value: object) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_UTC_Z | orjson.OPT_NAIVE_UTC)


def _protected(row: dict, field: str) -> dict:
    """The row with a yes/no for its password hash in place of the hash."""
    row["password_protected"] = bool(row.pop(field))
    return row


def pastes(user: AbstractBaseUser) -> Iterator[dict]:
    rows = Paste.objects.filter(owner=user).order_by("created_at", "id").values(*PASTE_FIELDS, "password")
    for row in rows.iterator(chunk_size=CHUNK_SIZE):
        yield _protected(row, "password")


def short_links(user: AbstractBaseUser) -> Iterator[dict]:
    """The user's links, oldest first, each with its unique visits per UTC day."""
    links = ShortLink.objects.filter(owner=user).order_by("id").values(*LINK_FIELDS, "password_hash")
    days = (
        DailyVisits.objects.filter(link__owner=user).order_by("link_id", "day").values_list("link_id", "day", "visits")
    )
    days = days.iterator(chunk_size=CHUNK_SIZE)
    pending = next(days, None)
    for link in links.iterator(chunk_size=CHUNK_SIZE):
        daily = []
        # Both are in link id order: the link's days are the next ones (a day of a link that is
        # no longer the user's, read between the two queries, is skipped).
        while pending is not None and pending[0] <= link["id"]:
            if pending[0] == link["id"]:
                daily.append({"day": pending[1], "visits": pending[2]})
            pending = next(days, None)
        link["daily_visits"] = daily
        yield _protected(link, "password_hash")


def projects(user: AbstractBaseUser) -> Iterator[dict]:
    yield from Project.objects.filter(owner=user).order_by("id").values(*PROJECT_FIELDS).iterator(chunk_size=CHUNK_SIZE)


def reports(user: AbstractBaseUser) -> Iterator[dict]:
    rows = Report.objects.filter(owner=user).order_by("id").values(*REPORT_FIELDS, "password")
    for row in rows.iterator(chunk_size=CHUNK_SIZE):
        yield _protected(row, "password")


def audits(user: AbstractBaseUser) -> Iterator[dict]:
    rows = Audit.objects.filter(owner=user).order_by("id").values(*AUDIT_FIELDS, "password")
    for row in rows.iterator(chunk_size=CHUNK_SIZE):
        yield _protected(row, "password")


def api_keys(user: AbstractBaseUser) -> Iterator[dict]:
    """Every key and short-link token, without its digest: what /accounts/keys/ shows."""
    for interface in INTERFACES:
        for row in key_model(interface).objects.filter(user=user).order_by("id").values(*KEY_FIELDS):
            yield {"interface": interface, **row}


def header(user: AbstractBaseUser) -> dict:
    profile = PasteProfile.for_user(user)
    return {
        "format": FORMAT,
        "service": settings.SERVICE_NAME,
        "exported_at": timezone.now(),
        "user": {
            "id": user.pk,
            "username": user.get_username(),
            "email": user.email,
            "date_joined": user.date_joined,
            "last_login": user.last_login,
        },
        "profile": {
            "bio": profile.bio or None,
            "avatar": profile.avatar or None,
            "badges": list(profile.badges or []),
            "max_paste_chars": profile.max_paste_chars,
        },
    }


SECTIONS = {
    "pastes": pastes,
    "short_links": short_links,
    "projects": projects,
    "reports": reports,
    "audits": audits,
    "api_keys": api_keys,
}


def stream(user: AbstractBaseUser) -> Iterator[bytes]:
    """The export as JSON text, in pieces of about FLUSH_BYTES: the header's fields, then one array per section."""
    opening = _dumps(header(user))
    buffer = bytearray(opening[:-1])  # the header object, still open
    for name, items in SECTIONS.items():
        buffer += b',"' + name.encode() + b'":['
        yield from _array(items(user), buffer)
        buffer += b"]"
    buffer += b"}"
    yield bytes(buffer)


def _array(items: Iterable[dict], buffer: bytearray) -> Iterator[bytes]:
    first = True
    for item in items:
        if not first:
            buffer += b","
        buffer += _dumps(item)
        first = False
        if len(buffer) >= FLUSH_BYTES:
            yield bytes(buffer)
            buffer.clear()


def filename(user: AbstractBaseUser) -> str:
    # Only safe characters in the header: usernames may hold @, + and dots, which are fine, and nothing else.
    safe = "".join(char if char.isalnum() or char in "-_.@+" else "_" for char in user.get_username())
    return f"{safe}-{datetime.now(UTC):%Y-%m-%d}.json"


@never_cache
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def export(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return render(request, "accounts/export.html", {"sections": list(SECTIONS)})
    response = StreamingHttpResponse(stream(request.user), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{filename(request.user)}"'
    return response
