"""Fixtures for interface A's tests."""

import ipaddress
import socket
import ssl

import pytest

from reports.analysis import fetch, netguard
from tests.reports.required import skip_or_fail
from tests.reports.testsite import TestSite, make_certificates

real_forbidden_reason = netguard.forbidden_reason


def resolve_locally(host: str, port: int) -> list[str]:
    """A resolver that knows only localhost, so that no test can reach the internet."""
    if host == "localhost":
        return ["127.0.0.1"]
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


@pytest.fixture(autouse=True)
def _no_internet(monkeypatch):
    monkeypatch.setattr(netguard, "resolve", resolve_locally)


@pytest.fixture(scope="session")
def _test_site_servers(tmp_path_factory):
    site = TestSite(make_certificates(tmp_path_factory.mktemp("tls")))
    yield site
    site.close()


@pytest.fixture
def test_site(_test_site_servers, settings) -> TestSite:
    """Handcrafted pages on 127.0.0.1 (see tests/reports/testsite.py): `test_site.url("/good")`.

    Loopback is refused by the engine's SSRF guard, so the fixture allows private
    networks for the test that uses it, and only for that test.
    """
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = True
    return _test_site_servers


@pytest.fixture
def public_test_site(test_site, settings, monkeypatch):
    """The test site with the SSRF guard on, pretending 127.0.0.1 is a public address."""
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = False

    def forbidden_reason(address):
        return None if address == ipaddress.ip_address("127.0.0.1") else real_forbidden_reason(address)

    monkeypatch.setattr(netguard, "forbidden_reason", forbidden_reason)
    return test_site


@pytest.fixture
def tls_test_site(test_site, monkeypatch) -> TestSite:
    """The test site, also served over HTTPS with a certificate the engine is made to trust."""
    if test_site.certificates is None:
        skip_or_fail("openssl is needed to make the test certificates", "REQUIRE_OPENSSL")
    ca_file = str(test_site.certificates.ca_cert)
    monkeypatch.setattr(fetch, "ssl_context", lambda: ssl.create_default_context(cafile=ca_file))
    return test_site
