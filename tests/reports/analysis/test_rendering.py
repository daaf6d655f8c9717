"""The rendered mode (REPORTS_RENDER): Debian's Chromium, every request through the SSRF guard."""

import ipaddress
from pathlib import Path

import pytest

from reports.analysis import analyze, netguard

CHROMIUM = "/usr/bin/chromium"

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="needs Debian's chromium (apt-get install chromium)"
)

real_forbidden_reason = netguard.forbidden_reason


@pytest.fixture
def rendering(settings):
    settings.REPORTS_RENDER = True
    settings.REPORTS_CHROMIUM_PATH = CHROMIUM
    settings.REPORTS_RENDER_TIMEOUT = 30


@pytest.fixture
def public_test_site(test_site, settings, monkeypatch):
    """The test site with the SSRF guard on, pretending 127.0.0.1 is a public address."""
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = False

    def forbidden_reason(address):
        return None if address == ipaddress.ip_address("127.0.0.1") else real_forbidden_reason(address)

    monkeypatch.setattr(netguard, "forbidden_reason", forbidden_reason)
    return test_site


def test_without_rendering_what_a_script_adds_is_not_seen(test_site):
    result = analyze(test_site.url("/scripted"))

    assert result.rendering == {"document": "source"}
    assert result.results["seo"]["headings"]["errors"] == {"missing": None}
    assert "color_contrast" not in result.results["accessibility"]


def test_the_dom_checks_read_the_rendered_document(test_site, rendering):
    result = analyze(test_site.url("/scripted"))

    assert result.rendering["document"] == "rendered"
    assert result.results["seo"]["headings"]["passed"]
    assert result.results["seo"]["in_page_links"]["value"]["internal"] == 2
    assert result.results["seo"]["image_keywords"]["value"] == {"images": 1, "without_alt": 0}
    assert result.rendering["dom_nodes"]["rendered"] > result.rendering["dom_nodes"]["source"]


def test_network_checks_keep_using_the_raw_response(test_site, rendering):
    result = analyze(test_site.url("/scripted"))

    # The served page is under 1400 bytes: no compression needed, whatever the browser built.
    assert result.results["performance"]["text_compression"]["passed"]
    assert result.results["performance"]["page_size"]["value"]["size"] < 1400


def test_colour_contrast_is_judged_on_the_rendered_page(test_site, rendering):
    result = analyze(test_site.url("/scripted"))

    contrast = result.results["accessibility"]["color_contrast"]
    assert contrast["importance"] == "medium"
    assert contrast["errors"]["failed"][0]["text"] == "Pale grey text on white."
    assert contrast["errors"]["failed"][0]["ratio"] < 4.5


def test_browser_requests_to_private_addresses_are_refused(public_test_site, rendering):
    result = analyze(public_test_site.url("/scripted"))

    refused = {item["url"]: item["reason"] for item in result.rendering["refused"]}
    assert refused["http://10.0.0.1/secret"] == "The address 10.0.0.1 is private; fetching it is not allowed."
    assert refused["http://192.168.1.1/pixel.gif"] == (
        "The address 192.168.1.1 is private; fetching it is not allowed."
    )
    assert result.rendering["document"] == "rendered"


def test_the_browser_sends_no_data_and_fetches_the_page_only_once(test_site, rendering):
    before = len(test_site.requests())

    result = analyze(test_site.url("/scripted"))

    requests = test_site.requests()[before:]
    assert ("POST", "/collect") not in requests
    assert requests.count(("GET", "/scripted")) == 1
    assert {"url": test_site.url("/collect"), "reason": "POST requests are not sent"} in result.rendering["refused"]


def test_requests_beyond_the_rendering_time_budget_are_refused(test_site, rendering, settings):
    settings.REPORTS_RENDER_TIMEOUT = 2

    result = analyze(test_site.url("/never-loads"))  # its image trickles in for 500 seconds

    assert result.rendering["document"] == "rendered"
    assert {"url": test_site.url("/slow-body"), "reason": "The page did not answer within 2 seconds."} in (
        result.rendering["refused"]
    )
    assert result.results["seo"]["title"]["passed"]


def test_a_missing_browser_falls_back_to_the_source_and_says_why(test_site, rendering, settings):
    settings.REPORTS_CHROMIUM_PATH = "/nonexistent/chromium"

    result = analyze(test_site.url("/good"))

    assert result.rendering["document"] == "source"
    assert result.rendering["render_error"]
    assert result.results["seo"]["title"]["passed"]
