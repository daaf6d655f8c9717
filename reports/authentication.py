"""Who may call interface A: a reports-scoped Bearer key (how often: reports.throttling)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema

from common.authentication import ApiKeyAuthentication


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
