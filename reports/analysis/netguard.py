"""SSRF guard: resolve a host once, refuse addresses that are not on the public internet.

The fetcher connects to the very addresses vetted here (see `fetch.GuardedBackend`),
so a DNS answer that changes between the check and the connection (DNS rebinding)
cannot slip a private address through.
"""

import ipaddress
import socket
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from urllib.parse import urlsplit

from reports.analysis.errors import AnalysisError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# How long a request waits for DNS when it vets a URL at the door (`refused_target`).
VET_TIMEOUT = 2.0
# getaddrinfo() has no timeout of its own; running it in a pool lets the caller stop waiting.
_resolver_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="reports-dns")


def resolve(host: str, port: int) -> list[str]:
    """The addresses `host` resolves to (tests patch this to simulate DNS answers)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


# Every address range that is not the public internet, as IANA's special-purpose registries list
# them (https://www.iana.org/assignments/iana-ipv4-special-registry, …/iana-ipv6-special-registry),
# with multicast, IPv6's deprecated site-local block and IANA's reserved ones: the one list every
# guard uses (report fetches and their redirects, audits' crawls, the renderer's requests, webhooks,
# and the start URLs and webhook URLs refused at the door). A few of these are routable anycast
# services (AS112, AMT, PCP): a page or a webhook receiver has no business being on one either.
# IPv6 addresses that carry an IPv4 address (mapped, 6to4, Teredo, NAT64's 64:ff9b::/96) are judged by
# it. The first range an address falls in names the reason.
SPECIAL_PURPOSE_NETWORKS: tuple[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str], ...] = tuple(
    (ipaddress.ip_network(network), reason)
    for network, reason in (
        # IPv4
        ("0.0.0.0/8", "unspecified"),  # "this network"
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "shared (carrier-grade NAT)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local"),
        ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "IETF protocol"),  # DS-Lite, NAT64 discovery, PCP and TURN anycast
        ("192.0.2.0/24", "documentation"),
        ("192.31.196.0/24", "AS112"),
        ("192.52.193.0/24", "AMT"),
        ("192.88.99.0/24", "6to4 relay"),
        ("192.168.0.0/16", "private"),
        ("192.175.48.0/24", "AS112"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation"),
        ("203.0.113.0/24", "documentation"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved"),  # 255.255.255.255, the broadcast address, among them
        # IPv6
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("64:ff9b:1::/48", "local NAT64"),
        ("100::/64", "discard-only"),
        ("100:0:0:1::/64", "dummy"),
        ("2001::/23", "IETF protocol"),  # Teredo's 2001::/32 is judged by its IPv4 address first
        ("2001:db8::/32", "documentation"),
        ("2620:4f:8000::/48", "AS112"),
        ("3fff::/20", "documentation"),
        ("5f00::/16", "segment routing"),
        ("fc00::/7", "private"),  # unique local
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local"),  # deprecated (RFC 3879) but still routed inside some networks
        ("ff00::/8", "multicast"),
        ("::/8", "reserved"),  # after 64:ff9b:1::/48, which it holds; IPv4-compatible ::a.b.c.d among them
    )
)


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries and routes to (mapped, 6to4, Teredo, NAT64)."""
    if address.ipv4_mapped:
        return address.ipv4_mapped
    if address.sixtofour:
        return address.sixtofour
    if address.teredo:
        return address.teredo[1]
    if address in ipaddress.IPv6Network("64:ff9b::/96"):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def forbidden_reason(address: IPAddress) -> str | None:
    """Why `address` must not be fetched (e.g. "loopback"), or None if it is a public address."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            return forbidden_reason(embedded)
    for network, reason in SPECIAL_PURPOSE_NETWORKS:
        if address in network:
            return reason
    # Python's own view, for what IANA adds after this list was written.
    if address.is_reserved or not address.is_global:
        return "not globally routable"
    return None


def refused_target(url: str, *, timeout: float = VET_TIMEOUT) -> str | None:
    """Why `url`'s host is not on the public internet (e.g. "a loopback address (127.0.0.1)"), or None.

    For a request to refuse, at the door, a URL that every fetch of it would refuse later. A host
    that does not resolve now (or not in `timeout` seconds) is None: each fetch resolves and vets
    it again before connecting.
    """
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        addresses = vetted_addresses(parts.hostname or "", port, timeout=timeout, allow_private=True)
    except (ValueError, AnalysisError, TimeoutError):
        return None
    for address in addresses:
        reason = forbidden_reason(ipaddress.ip_address(address))
        if reason:
            return f"{'an' if reason[0] in 'aeiouAEIOU' else 'a'} {reason} address ({address})"
    return None


def check_address(address: str) -> None:
    """Raise AnalysisError unless `address` is public."""
    if forbidden_reason(ipaddress.ip_address(address)):
        raise AnalysisError(f"The address {address} is private; fetching it is not allowed.")


def _is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _resolve_within(host: str, port: int, timeout: float | None) -> list[str]:
    future = _resolver_pool.submit(resolve, host, port)
    try:
        addresses = future.result(timeout=timeout)
    except FutureTimeout:
        raise TimeoutError(f"resolving {host} took too long") from None
    except (OSError, UnicodeError):
        addresses = []
    if not addresses:
        raise AnalysisError(f"Could not resolve host {host}.")
    return addresses


def vetted_addresses(host: str, port: int, *, timeout: float | None, allow_private: bool) -> list[str]:
    """Resolve `host` and return its addresses, refusing the lot if any one is private."""
    host = host.strip("[]")
    addresses = [host] if _is_ip_literal(host) else _resolve_within(host, port, timeout)
    if not allow_private:
        # One private answer is enough to refuse: a round-robin mix is a classic rebinding trick.
        for address in addresses:
            check_address(address)
    return addresses
