import ipaddress
import socket

import pytest

from reports.analysis import netguard
from reports.analysis.errors import AnalysisError


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("fd00::1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),  # broadcast
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("100.64.0.1", "shared (carrier-grade NAT)"),
        ("192.0.0.9", "IETF protocol"),
        ("192.0.2.1", "documentation"),
        ("198.18.0.1", "benchmarking"),
        ("192.88.99.1", "6to4 relay"),
        # What Python's is_global lets through: IANA's registry has the final word.
        ("fec0::1", "site-local"),  # deprecated, still routed inside some networks
        ("3fff::1", "documentation"),
        ("5f00::1", "segment routing"),
        ("100:0:0:1::1", "dummy"),
        ("64:ff9b:1::a00:1", "local NAT64"),
        ("::7f00:1", "reserved"),  # IPv4-compatible (deprecated)
        ("2001:db8::1", "documentation"),
        ("2001:2::1", "IETF protocol"),
        ("100::1", "discard-only"),
        ("2002:a00:1::", "private"),  # 6to4 wrapping 10.0.0.1
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "documentation"),  # Teredo, client 192.0.2.45
        ("::ffff:127.0.0.1", "loopback"),  # IPv4-mapped
        ("::ffff:10.0.0.1", "private"),
        ("2002:7f00:1::", "loopback"),  # 6to4 wrapping 127.0.0.1
        ("64:ff9b::a00:1", "private"),  # NAT64 wrapping 10.0.0.1
    ],
)
def test_non_public_addresses_are_forbidden(address, reason):
    assert netguard.forbidden_reason(ipaddress.ip_address(address)) == reason


@pytest.mark.parametrize(
    "address",
    [
        "93.184.215.14",
        "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
        "::ffff:8.8.8.8",
        "2002:808:808::1",  # 6to4 wrapping 8.8.8.8
        "64:ff9b::808:808",  # NAT64 wrapping 8.8.8.8
    ],
)
def test_public_addresses_are_allowed(address):
    assert netguard.forbidden_reason(ipaddress.ip_address(address)) is None


def test_a_host_name_resolving_to_a_private_address_is_refused(monkeypatch):
    monkeypatch.setattr(netguard, "resolve", lambda host, port: ["10.0.0.7"])

    with pytest.raises(AnalysisError, match=r"^The address 10\.0\.0\.7 is private; fetching it is not allowed\.$"):
        netguard.vetted_addresses("intranet.example", 80, timeout=1, allow_private=False)


def test_a_host_name_with_one_private_address_among_public_ones_is_refused(monkeypatch):
    monkeypatch.setattr(netguard, "resolve", lambda host, port: ["93.184.215.14", "127.0.0.1"])

    with pytest.raises(AnalysisError, match=r"127\.0\.0\.1 is private"):
        netguard.vetted_addresses("rebind.example", 80, timeout=1, allow_private=False)


def test_a_host_name_resolving_to_public_addresses_is_allowed(monkeypatch):
    monkeypatch.setattr(netguard, "resolve", lambda host, port: ["93.184.215.14"])

    assert netguard.vetted_addresses("shop.example", 443, timeout=1, allow_private=False) == ["93.184.215.14"]


def test_private_addresses_are_allowed_when_the_setting_says_so(monkeypatch):
    monkeypatch.setattr(netguard, "resolve", lambda host, port: ["10.0.0.7"])

    assert netguard.vetted_addresses("intranet.example", 80, timeout=1, allow_private=True) == ["10.0.0.7"]


def test_an_ipv6_literal_in_brackets_is_checked_without_dns():
    with pytest.raises(AnalysisError, match="::1 is private"):
        netguard.vetted_addresses("[::1]", 80, timeout=1, allow_private=False)


def test_a_name_that_does_not_resolve_gives_a_clear_error(monkeypatch):
    def fail(host, port):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(netguard, "resolve", fail)

    with pytest.raises(AnalysisError, match=r"^Could not resolve host nowhere\.invalid\.$"):
        netguard.vetted_addresses("nowhere.invalid", 80, timeout=1, allow_private=False)


def test_every_special_purpose_range_is_refused_at_both_ends():
    for network, reason in netguard.SPECIAL_PURPOSE_NETWORKS:
        for address in (network[0], network[-1]):
            assert netguard.forbidden_reason(address) is not None, (network, reason, address)


@pytest.mark.parametrize(
    ("url", "refused"),
    [
        ("http://[fec0::1]/", "a site-local address (fec0::1)"),
        ("https://localhost:8443/x", "a loopback address (127.0.0.1)"),  # the tests' resolver knows localhost
        ("http://10.0.0.1/", "a private address (10.0.0.1)"),
        ("http://192.0.0.9/", "an IETF protocol address (192.0.0.9)"),
        ("http://nowhere.invalid/", None),  # every fetch resolves it again
        ("http://93.184.215.14/", None),
        ("http://[::1/", None),  # not a URL: the caller's own validation answers
    ],
)
def test_a_url_on_a_private_address_is_refused_at_the_door(url, refused):
    assert netguard.refused_target(url) == refused
