from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from shortener.domains import key_of_host


class ShortenerHostMiddleware:
    """Serve only the shortener, at the root, to requests for a host of SHORTENER_DOMAINS (or SHORTENER_HOST).

    `https://sho.rt/abc123` then resolves like `https://example.com/s/abc123`, and the
    rest of the site (admin, APIs) is absent on that host.
    """

    urlconf = "config.urls_shortener_host"

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if key_of_host(request.get_host().split(":", 1)[0].lower()) is not None:
            request.urlconf = self.urlconf
        return self.get_response(request)
