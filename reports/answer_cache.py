"""The reports API's reads, answered from a cache while the owner's reports have not changed.

`GET /api/v1/reports` builds each report of the page as a model and as JSON: 5.0 ms of CPU for 25
of them, 1.6 ms when the body is kept (bench/README.md, "Where the time went"). Clients
read the same answers again and again: a dashboard that refreshes, a CI job polling its report
until it is `done`. So the rendered body of a 200 from the list or a report's show is kept in
CACHES["reports"] under a key made of:

- the owner and their OwnerReportsVersion number, which database triggers raise with every write
  to their reports and to their projects' names and budgets, whoever makes it (a view, the
  analysis worker, the admin, a cascade): after a write the old key is never asked for again;
- the language (the API answers in English, but a budget's messages go through gettext) and the
  whole URL: scheme, host, path and query, since the list's links are absolute.

The number is read before the reports, so a body is at least as new as the number it is kept
under. Authentication, the key's scope and the rate limit (with its headers) stay per request.
"""

import hashlib

from django.core.cache import caches
from django.db import connection
from django.http import HttpResponse, HttpResponseBase
from django.utils import translation
from rest_framework.request import Request
from rest_framework.response import Response

from reports.models import OwnerReportsVersion

# A page of a hundred reports with their results can weigh a megabyte or more: such a body is made anew.
MAX_BODY_BYTES = 256 * 1024
TIMEOUT_SECONDS = 300
VERSION_SQL = f"SELECT version FROM {OwnerReportsVersion._meta.db_table} WHERE owner_id = %s"
KEY_ATTRIBUTE = "_reports_answer_key"


def _owner_version(owner_id: int) -> int | None:
    with connection.cursor() as cursor:
        cursor.execute(VERSION_SQL, [owner_id])
        row = cursor.fetchone()
    return row[0] if row else None


def cached_answer(request: Request) -> HttpResponse | None:
    """The kept answer to this read, if there is one; else None, and `keep` will store the answer made."""
    version = _owner_version(request.user.pk)
    if version is None:  # no report was ever written for this owner: nothing to keep
        return None
    url = request.build_absolute_uri()
    key = hashlib.sha256(f"{request.user.pk}:{version}:{translation.get_language()}:{url}".encode()).hexdigest()
    setattr(request, KEY_ATTRIBUTE, key)
    kept = caches["reports"].get(key)
    if kept is None:
        return None
    content_type, body = kept
    return HttpResponse(body, content_type=content_type)


def keep(request: Request, response: HttpResponseBase) -> None:
    """Store a read's answer made anew under the key `cached_answer` chose (call it finalized)."""
    key = getattr(request, KEY_ATTRIBUTE, None)
    if key is None or response.status_code != 200 or not isinstance(response, Response):
        return
    body = response.render().content
    if len(body) <= MAX_BODY_BYTES:
        caches["reports"].set(key, (response["Content-Type"], body), TIMEOUT_SECONDS)
