from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


class ShortenerHostMiddleware:
    """Serve only the shortener, at the root, to requests for SHORTENER_HOST.

    `https://sho.rt/abc123` then resolves like `https://example.com/s/abc123`, and the
    rest of the site (admin, APIs) is absent on that host.
    """

    urlconf = "config.urls_shortener_host"

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        host = settings.SHORTENER_HOST
        if host and request.get_host().split(":", 1)[0].lower() == host:
            request.urlconf = self.urlconf
        return self.get_response(request)
