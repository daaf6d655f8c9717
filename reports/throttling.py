"""How often interface A may be called: per API key on the API, per client and report on password pages."""

from django.http import HttpRequest

from common.throttling import Throttle


class ApiKeyRateThrottle(Throttle):
    """REPORTS_RATE_LIMIT requests per REPORTS_RATE_PERIOD seconds per API key (unauthenticated: not counted)."""

    scope = "reports-api"
    limit_setting = "REPORTS_RATE_LIMIT"
    period_setting = "REPORTS_RATE_PERIOD"

    def get_key(self, request: HttpRequest) -> str | None:
        return None if request.auth is None else f"key:{request.auth.pk}"


class PagePasswordThrottle(Throttle):
    """REPORTS_PAGE_PASSWORD_ATTEMPTS per REPORTS_PAGE_PASSWORD_PERIOD seconds, per client address and report."""

    scope = "reports-page-password"
    limit_setting = "REPORTS_PAGE_PASSWORD_ATTEMPTS"
    period_setting = "REPORTS_PAGE_PASSWORD_PERIOD"

    def __init__(self, report_id: int) -> None:
        self.report_id = report_id

    def get_key(self, request: HttpRequest) -> str:
        return f"{self.get_ident(request)}:{self.report_id}"
