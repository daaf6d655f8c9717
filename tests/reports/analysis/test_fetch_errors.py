"""Every way fetching can fail ends in an AnalysisError whose message names the cause."""

import socket
import threading
import time

import pytest

from reports.analysis import AnalysisError, analyze, netguard
from tests.reports.required import skip_or_fail


def analysis_error(url: str) -> str:
    with pytest.raises(AnalysisError) as excinfo:
        analyze(url)
    assert str(excinfo.value) == excinfo.value.message
    return excinfo.value.message


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_loopback_is_refused_by_default(test_site, settings):
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = False

    assert analysis_error(test_site.url("/good")) == "The address 127.0.0.1 is private; fetching it is not allowed."


def test_loopback_refusal_sends_no_request(test_site, settings):
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = False
    before = len(test_site.requests())

    analysis_error(test_site.url("/good?refused"))

    assert ("GET", "/good?refused") not in test_site.requests()[before:]


@pytest.mark.parametrize(
    ("url", "address"),
    [
        ("http://[::1]/", "::1"),
        ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1"),
        ("http://10.0.0.1/", "10.0.0.1"),
        ("https://192.168.0.10:8443/", "192.168.0.10"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
        ("http://0.0.0.0/", "0.0.0.0"),
        ("http://[fe80::1]/", "fe80::1"),
    ],
)
def test_private_addresses_are_refused(url, address, settings):
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = False

    assert analysis_error(url) == f"The address {address} is private; fetching it is not allowed."


def test_a_host_name_resolving_to_a_private_address_is_refused(settings, monkeypatch):
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = False
    monkeypatch.setattr(netguard, "resolve", lambda host, port: ["192.168.1.20"])

    assert analysis_error("http://intranet.example/") == (
        "The address 192.168.1.20 is private; fetching it is not allowed."
    )


def test_the_guard_lets_a_public_address_through(public_test_site):
    result = analyze(public_test_site.url("/good"))

    assert result.final_url == public_test_site.url("/good")
    assert result.results["seo"]["title"]["passed"]


def test_a_redirect_to_a_private_address_is_refused(public_test_site):
    url = public_test_site.url("/redirect/to?location=http://10.0.0.1/admin")

    assert analysis_error(url) == "The address 10.0.0.1 is private; fetching it is not allowed."


def test_a_redirect_to_ipv6_loopback_is_refused(public_test_site):
    url = public_test_site.url("/redirect/to?location=http://[::1]:8000/")

    assert analysis_error(url) == "The address ::1 is private; fetching it is not allowed."


def test_a_redirect_to_a_name_resolving_to_a_private_address_is_refused(public_test_site, monkeypatch):
    monkeypatch.setattr(netguard, "resolve", lambda host, port: ["169.254.169.254"])
    url = public_test_site.url("/redirect/to?location=http://metadata.example/")

    assert analysis_error(url) == "The address 169.254.169.254 is private; fetching it is not allowed."


def test_a_host_that_does_not_resolve_is_reported():
    assert analysis_error("http://example.invalid/") == "Could not resolve host example.invalid."


def test_a_closed_port_is_reported(test_site):
    port = free_port()

    assert analysis_error(f"http://127.0.0.1:{port}/") == "Could not connect to 127.0.0.1 (connection refused)."


def test_a_tls_failure_is_reported(test_site):
    # The test site speaks plain HTTP, so a TLS handshake with it fails.
    message = analysis_error(test_site.url("/good").replace("http://", "https://"))

    assert message.startswith("The TLS handshake with 127.0.0.1 failed (")


def test_a_slow_answer_is_a_timeout(test_site, settings):
    settings.REPORTS_FETCH_TIMEOUT = 0.5

    assert analysis_error(test_site.url("/slow?delay=2")) == "The page did not answer within 0.5 seconds."


def test_a_body_that_trickles_in_is_cut_at_the_time_budget(test_site, settings):
    settings.REPORTS_FETCH_TIMEOUT = 1

    assert analysis_error(test_site.url("/slow-body")) == "The page did not answer within 1 second."


def test_headers_that_trickle_in_are_cut_at_the_time_budget(test_site, settings):
    settings.REPORTS_FETCH_TIMEOUT = 1
    started = time.monotonic()

    assert analysis_error(test_site.url("/slow-headers")) == "The page did not answer within 1 second."
    assert time.monotonic() - started < 3  # not the minute the headers would take


def test_a_non_html_page_is_refused(test_site):
    assert analysis_error(test_site.url("/document.pdf")) == (
        "The URL does not point to an HTML page (content type application/pdf)."
    )


def test_a_page_over_the_size_limit_is_refused(test_site):
    assert analysis_error(test_site.url("/huge")) == "The page is larger than the 5 MB limit."


def test_a_compression_bomb_is_stopped_at_the_size_limit(test_site, settings):
    settings.REPORTS_MAX_BODY_BYTES = 100_000

    assert analysis_error(test_site.url("/gzip-bomb")) == "The page is larger than the 97.7 kB limit."


def test_a_redirect_loop_stops_after_five_redirects(test_site):
    assert analysis_error(test_site.url("/redirect/loop/0")) == "The URL redirected more than 5 times."


def test_the_redirect_limit_is_a_setting(test_site, settings):
    settings.REPORTS_MAX_REDIRECTS = 2

    assert analysis_error(test_site.url("/redirect/chain")) == "The URL redirected more than 2 times."


def test_a_redirect_to_another_scheme_is_refused(test_site):
    url = test_site.url("/redirect/to?location=ftp://files.example/page.html")

    assert analysis_error(url) == (
        "The URL redirected to ftp://files.example/page.html, which is not an http or https address."
    )


@pytest.mark.parametrize("url", ["ftp://files.example/", "file:///etc/passwd", "javascript:alert(1)"])
def test_only_http_and_https_urls_are_analysed(url):
    assert analysis_error(url) == "Only http and https URLs can be analysed."


def test_a_url_without_a_host_is_refused():
    assert analysis_error("http:///path") == "The URL has no host name."


def test_an_error_status_is_reported(test_site):
    assert (
        analysis_error(test_site.url("/status/500"))
        == "The page answered with HTTP status 500 (Internal Server Error)."
    )


def test_a_missing_page_is_reported(test_site):
    assert analysis_error(test_site.url("/no-such-page")) == "The page answered with HTTP status 404 (Not Found)."


def test_an_untrusted_certificate_is_a_tls_error(test_site):
    if test_site.certificates is None:
        skip_or_fail("openssl is needed to make the test certificates", "REQUIRE_OPENSSL")

    assert (
        analysis_error(test_site.url("/good", site="tls"))
        == "The TLS handshake with 127.0.0.1 failed (unable to get local issuer certificate)."
    )


def test_a_redirect_to_an_invalid_address_is_reported(test_site):
    url = test_site.url("/redirect/to?location=http://[::1")

    assert analysis_error(url).startswith("The URL redirected to an invalid address (")


def test_an_out_of_range_port_is_refused():
    assert analysis_error("http://shop.example:99999/") == "The port 99999 is not a valid port number."


def test_a_private_sub_resource_is_refused_without_failing_the_analysis(public_test_site):
    result = analyze(public_test_site.url("/private-assets"))

    assert result.results["performance"]["http_requests"]["value"]["failed"] == [
        {"url": "http://10.0.0.1/app.js", "error": "The address 10.0.0.1 is private; fetching it is not allowed."},
        {"url": public_test_site.url("/images/missing.webp"), "error": "HTTP 404"},
    ]


def test_a_brotli_bomb_is_stopped_at_the_size_limit(test_site):
    assert analysis_error(test_site.url("/brotli-bomb")) == "The page is larger than the 5 MB limit."


def test_a_corrupt_compressed_body_is_reported(test_site):
    assert analysis_error(test_site.url("/corrupt-gzip")).startswith(
        "The answer from 127.0.0.1 is compressed incorrectly ("
    )


def test_an_unsupported_compression_is_reported(test_site):
    assert analysis_error(test_site.url("/zstd")) == "The answer from 127.0.0.1 uses an unsupported compression (zstd)."


def test_a_dns_lookup_that_hangs_is_a_timeout(settings, monkeypatch):
    settings.REPORTS_FETCH_TIMEOUT = 0.3
    answer = threading.Event()

    def hanging_resolve(host, port):
        # Hangs until the test is over, however slow the machine: only the timeout can end the wait.
        answer.wait(timeout=30)
        return ["93.184.215.14"]

    monkeypatch.setattr(netguard, "resolve", hanging_resolve)
    try:
        assert analysis_error("http://slow-dns.example/") == "The page did not answer within 0.3 seconds."
    finally:
        answer.set()  # frees the resolver pool's thread
