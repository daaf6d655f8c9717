"""Fixtures for site audits: the audit test site, reached as `localhost` with the SSRF guard on."""

import ipaddress

import pytest

from reports.analysis import netguard
from tests.reports.api.conftest import other_client, owner_client  # noqa: F401  (fixtures)
from tests.reports.audits.site import AuditSite
from tests.reports.conftest import real_forbidden_reason


@pytest.fixture
def audit_site(settings, monkeypatch):
    """The audit test site; 127.0.0.1 counts as public, every other private address stays refused."""
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = False
    settings.REPORTS_FETCH_TIMEOUT = 2.0
    settings.REPORTS_MAX_SUBREQUESTS = 4

    def forbidden_reason(address):
        return None if address == ipaddress.ip_address("127.0.0.1") else real_forbidden_reason(address)

    monkeypatch.setattr(netguard, "forbidden_reason", forbidden_reason)
    site = AuditSite()
    yield site
    site.close()
