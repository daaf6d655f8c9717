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


def redirect_response(url: str) -> HttpResponse:
    """The answer to a visit of a live link (a 302, or a 301 with SHORTENER_REDIRECT_PERMANENT)."""
    if settings.SHORTENER_REDIRECT_PERMANENT:
        return HttpResponsePermanentRedirect(url)
    return HttpResponseRedirect(url)
