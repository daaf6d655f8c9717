"""How often interface A may be called: per API key on the API, per client and report on password pages.

Both count across processes (a limit counted in each process's memory let two processes take
twice the tries at a page's password): the API in Redis when there is one, else in the database;
password tries always in the database, like the shortener's and the pastes' (common.throttling).
"""

from django.http import HttpRequest

from common.throttling import DurableThrottle, SharedThrottle


class ApiKeyRateThrottle(SharedThrottle):
    """REPORTS_RATE_LIMIT requests per REPORTS_RATE_PERIOD seconds per API key (unauthenticated: not counted)."""

    scope = "reports-api"
    limit_setting = "REPORTS_RATE_LIMIT"
    period_setting = "REPORTS_RATE_PERIOD"

    def get_key(self, request: HttpRequest) -> str | None:
        return None if request.auth is None else f"key:{request.auth.pk}"


class PagePasswordThrottle(DurableThrottle):
    """REPORTS_PAGE_PASSWORD_ATTEMPTS per REPORTS_PAGE_PASSWORD_PERIOD seconds, per client address and report."""

    scope = "reports-page-password"
    limit_setting = "REPORTS_PAGE_PASSWORD_ATTEMPTS"
    period_setting = "REPORTS_PAGE_PASSWORD_PERIOD"

    def __init__(self, report_id: int) -> None:
        self.report_id = report_id

    def get_key(self, request: HttpRequest) -> str:
        return f"{self.get_ident(request)}:{self.report_id}"
