"""SSRF guard: resolve a host once, refuse addresses that are not on the public internet.

The fetcher connects to the very addresses vetted here (see `fetch.GuardedBackend`),
so a DNS answer that changes between the check and the connection (DNS rebinding)
cannot slip a private address through.
"""

import ipaddress
import socket
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from reports.analysis.errors import AnalysisError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# getaddrinfo() has no timeout of its own; running it in a pool lets the caller stop waiting.
_resolver_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="reports-dns")


def resolve(host: str, port: int) -> list[str]:
    """The addresses `host` resolves to (tests patch this to simulate DNS answers)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


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
    for reason in ("unspecified", "loopback", "link_local", "multicast", "private", "reserved"):
        if getattr(address, f"is_{reason}"):
            return reason.replace("_", "-")
    if not address.is_global:
        return "not globally routable"
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
