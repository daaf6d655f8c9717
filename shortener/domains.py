"""Several short domains (issue 46): which hosts serve the shortener, and which one a request addresses.

`SHORTENER_DOMAINS` lists the hosts that serve the shortener alone, at their root; without it,
`SHORTENER_HOST` is the only one. A link belongs to one domain, stored in `ShortLink.domain` as
its host, except the default domain (the first listed), stored as "": an Lstu-style instance
with one host (or none: the main host's /<prefix>/) keeps every link as it was, and renaming
the default domain moves its links with it. A request on a domain's host addresses that
domain's links; one on the main host's /<prefix>/ addresses the default domain's, or those of
the domain named by a `domain` parameter (query or form).
"""

from django.conf import settings
from django.core.signals import setting_changed
from django.http import HttpRequest
from django.urls import reverse

from shortener import messages
from shortener.errors import Failure
from shortener.formats import wants_json
from shortener.models import ShortDomain

DEFAULT = ""


def configured() -> list[str]:
    """The short domains' hosts, the default first."""
    if settings.SHORTENER_DOMAINS:
        return settings.SHORTENER_DOMAINS
    return [settings.SHORTENER_HOST] if settings.SHORTENER_HOST else []


# host → stored domain, made once from the settings (and again after a change: tests), because the
# redirect's shortcut asks for every visit.
_host_keys: dict[str, str] | None = None


def host_keys() -> dict[str, str]:
    """Each short domain's host (lower case, no port) → its stored domain; empty without short domains."""
    global _host_keys
    if _host_keys is None:
        hosts = configured()
        _host_keys = {host: DEFAULT if number == 0 else host for number, host in enumerate(hosts)}
    return _host_keys


def _forget_hosts(**kwargs: object) -> None:
    global _host_keys
    _host_keys = None


setting_changed.connect(_forget_hosts, dispatch_uid="shortener-domains-hosts")


def key_of_host(host: str) -> str | None:
    """The stored domain of a request's host name (lower case, no port), or None if it serves no domain."""
    return host_keys().get(host)


def host_of(domain: str) -> str:
    """The host of a stored domain; "" for the default domain of an instance without short hosts."""
    if domain:
        return domain
    domains = configured()
    return domains[0] if domains else ""


def request_host_domain(request: HttpRequest) -> str | None:
    """The domain whose host this request was sent to, or None on the main host."""
    return key_of_host(request.get_host().split(":", 1)[0].lower())


def clean_domain(raw: object) -> str:
    """The stored domain a client named (a host of SHORTENER_DOMAINS; empty: the default), else a 400."""
    if raw is None or raw == "":
        return DEFAULT
    host = raw.strip().lower() if isinstance(raw, str) else None
    key = key_of_host(host) if host else None
    if key is None:
        raise Failure(messages.DOMAIN_UNKNOWN.format(domain=str(raw)[:100], domains=", ".join(configured()) or "none"))
    return key


def request_domain(request: HttpRequest) -> str:
    """The domain whose links this request addresses: the `domain` parameter's, else its host's, else the default.

    The parameter is read from the query string only (a form's action carries it), so that
    finding the link never parses a body. An unknown one is a 400 in the interface's shape.
    """
    if "domain" in request.GET:
        return clean_domain(request.GET["domain"])
    on_host = request_host_domain(request)
    return DEFAULT if on_host is None else on_host


def short_url(request: HttpRequest, code: str, domain: str | None = None) -> str:
    """The full short URL of `code` on `domain` (None: the domain the request addresses).

    A link of a short domain is at the root of its host, whichever host was asked (the request's
    scheme, and its port when it is the same host); the default domain of an instance without
    short hosts is under the main host's /<prefix>/.
    """
    if domain is None:
        domain = request_domain(request)
    host = host_of(domain)
    if not host:
        return request.build_absolute_uri(reverse("shortener:redirect", args=[code]))
    request_host = request.get_host()
    if request_host.split(":", 1)[0].lower() != host:
        request_host = host
    return f"{request.scheme}://{request_host}/{code}"


def domain_query(request: HttpRequest, domain: str) -> str:
    """The query string that makes a URL of this request's host address a link of `domain` ("" if it already does)."""
    on_host = request_host_domain(request)
    if domain == (DEFAULT if on_host is None else on_host):
        return ""
    return f"?domain={host_of(domain)}"


def redirects_of(domain: str) -> ShortDomain | None:
    """What admins set for `domain` (its root and not-found redirects), if anything."""
    return ShortDomain.objects.filter(domain=domain).first()


def not_found_redirect(request: HttpRequest) -> str:
    """Where a browser asking this short domain's host for a code it cannot follow goes ("": the 404 page).

    Only on the domain's own host, and never for a JSON client, which keeps Lstu's 404 answer.
    """
    domain = request_host_domain(request)
    if domain is None or request.method not in ("GET", "HEAD") or wants_json(request):
        return ""
    found = redirects_of(domain)
    return found.not_found_redirect if found else ""
