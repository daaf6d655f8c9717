"""Who may call interface A, and how often: a reports-scoped Bearer key, rate limited per key."""

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from common import ratelimit
from common.authentication import ApiKeyAuthentication

RATE_LIMIT_PERIOD = 60  # seconds: REPORTS_RATE_LIMIT is a per-minute figure


class ReportsApiKeyAuthentication(ApiKeyAuthentication):
    """`Authorization: Bearer <key>` with a key issued for interface A (a pastes key is refused)."""

    model_label = "reports.ApiKey"
    keyword = "Bearer"
    keyword_required = True


class ReportsApiKeyScheme(OpenApiAuthenticationExtension):
    """Describes the key in the OpenAPI schema."""

    target_class = ReportsApiKeyAuthentication
    name = "reportsApiKey"

    def get_security_definition(self, auto_schema: AutoSchema) -> dict:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A reports API key (rpt_…), issued in the admin or by "
            "`manage.py create_api_key --interface reports`.",
        }


class ApiKeyRateThrottle(BaseThrottle):
    """REPORTS_RATE_LIMIT requests a minute per API key, counted in the shared cache.

    The outcome is kept on the request so that every answer, not only the 429,
    can carry X-RateLimit-Limit and X-RateLimit-Remaining.
    """

    def allow_request(self, request: Request, view: APIView) -> bool:
        if request.auth is None:
            return True
        self.outcome = ratelimit.hit(
            f"reports-api:key:{request.auth.pk}", limit=settings.REPORTS_RATE_LIMIT, period=RATE_LIMIT_PERIOD
        )
        request.rate_limit = self.outcome
        return self.outcome.allowed

    def wait(self) -> float:
        return self.outcome.retry_after
