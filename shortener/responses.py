"""The shortener's two success answers, shared by its views and the fast path.

Here rather than in the views or shortener.negotiation because the WSGI shortcut
(shortener/fastpath/wsgi.py) answers a visit in front of Django and must not depend
on the views it bypasses; tests/shortener/test_layout.py keeps it so. Failures answer
through shortener.errors.
"""

from typing import Any

from django.conf import settings
from django.http import HttpResponse, HttpResponsePermanentRedirect, HttpResponseRedirect, JsonResponse


def success(**fields: Any) -> JsonResponse:
    """Lstu's JSON answer to an operation that worked: `{"success": true, …fields}`."""
    return JsonResponse({"success": True, **fields})


def redirect_response(url: str, status: int | None = None) -> HttpResponse:
    """The answer to a visit of a live link: its own status (301, 302, 307, 308; issue 46) if it has
    one, else a 302, or a 301 with SHORTENER_REDIRECT_PERMANENT."""
    if status is None:
        status = 301 if settings.SHORTENER_REDIRECT_PERMANENT else 302
    response = HttpResponsePermanentRedirect(url) if status in (301, 308) else HttpResponseRedirect(url)
    response.status_code = status
    return response
