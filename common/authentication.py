from django.apps import apps
from django.contrib.auth.models import AbstractBaseUser
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from common.api_keys import AbstractApiKey


class ApiKeyAuthentication(BaseAuthentication):
    """Authenticate with an interface's API key from the Authorization header.

    Subclasses name the key model (`model_label`) and whether the value must start
    with the scheme word (`Authorization: Bearer <key>`) or may be the bare key.
    """

    model_label = ""
    keyword = "Bearer"
    keyword_required = True

    def authenticate(self, request: Request) -> tuple[AbstractBaseUser, AbstractApiKey] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "").strip()
        if not header:
            return None
        raw_key = self.extract_key(header)
        if not raw_key:
            raise AuthenticationFailed()
        api_key = apps.get_model(self.model_label).authenticate(raw_key)
        if api_key is None:
            raise AuthenticationFailed()
        return api_key.user, api_key

    def extract_key(self, header: str) -> str | None:
        scheme, _, rest = header.partition(" ")
        if scheme.lower() == self.keyword.lower():
            return rest.strip() or None
        if self.keyword_required:
            return None
        return header

    def authenticate_header(self, request: Request) -> str:
        # A value here makes DRF answer 401 rather than 403 to unauthenticated requests.
        return self.keyword
