"""Fixtures for interface A's tests."""

import socket

import pytest

from reports.analysis import netguard
from tests.reports.testsite import TestSite


def resolve_locally(host: str, port: int) -> list[str]:
    """A resolver that knows only localhost, so that no test can reach the internet."""
    if host == "localhost":
        return ["127.0.0.1"]
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


@pytest.fixture(autouse=True)
def _no_internet(monkeypatch):
    monkeypatch.setattr(netguard, "resolve", resolve_locally)


@pytest.fixture(scope="session")
def _test_site_servers():
    site = TestSite()
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
