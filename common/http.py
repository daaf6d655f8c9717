from django.http import HttpRequest
from rest_framework.throttling import BaseThrottle


def client_ip(request: HttpRequest) -> str:
    """The client's address: DRF's get_ident, which trusts X-Forwarded-For only behind NUM_PROXIES proxies."""
    return BaseThrottle().get_ident(request) or ""
