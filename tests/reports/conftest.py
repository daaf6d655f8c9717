"""Fixtures for interface A's tests."""

import pytest

from tests.reports.testsite import TestSite


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
