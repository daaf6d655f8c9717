"""Who may call interface A: a reports-scoped Bearer key (how often: reports.throttling)."""

from common.authentication import ApiKeyAuthentication


class ReportsApiKeyAuthentication(ApiKeyAuthentication):
    """`Authorization: Bearer <key>` with a key issued for interface A (a pastes key is refused)."""

    model_label = "reports.ApiKey"
    keyword = "Bearer"
    keyword_required = True
