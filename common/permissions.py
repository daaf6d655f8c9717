"""What an API key's scope lets a request of interfaces A and B do (common.api_keys.Scope).

C has no DRF views: its Bearer tokens are checked by shortener.tokens, with its own message.
"""

from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

from common.api_keys import AbstractApiKey

READ_ONLY_KEY = "This API key is read-only: it may only read (GET, HEAD and OPTIONS requests)."


class KeyScopeAllows(BasePermission):
    """Refuse a read key anything but a safe method; requests without a key are left to the other permissions."""

    message = READ_ONLY_KEY

    def has_permission(self, request: Request, view: APIView) -> bool:
        api_key = request.auth
        return not isinstance(api_key, AbstractApiKey) or api_key.allows(request.method)
