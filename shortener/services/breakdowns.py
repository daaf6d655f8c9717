"""Statistics breakdowns: where a link's visitors came from, with what, and from which country.

What a visit keeps for them (`VisitDetails`) is taken from its request: the User-Agent, the
Referer and the country of the client address, looked up at once in an offline table (the
`iptocc` package: the five Regional Internet Registries' delegation files, public data, shipped
inside the wheel; no network). The address itself is never kept, not even in the visit buffer.
The User-Agent is read by `ua-parser` with the uap-core rules (`ua-parser-builtins`), when the
batch writer runs, not during the redirect; the writer adds each new visit to one row per
dimension (`VisitBreakdown`), in the transaction that counts it (shortener/fastpath/visits.py).
So each dimension adds up to the link's unique visits of those days, whatever was pruned.
"""

import datetime
from functools import lru_cache
from urllib.parse import urlsplit

from django.db.models import Sum
from django.http import HttpRequest

from common.http import client_ip
from shortener.models import VisitBreakdown

# (User-Agent, Referer, country code): what a new visit brings to the batch writer.
type VisitDetails = tuple[str, str, str]
NO_DETAILS: VisitDetails = ("", "", "")

# The JSON keys (and the page's tables), in the page's order; each is a dimension of VisitBreakdown.
DIMENSIONS = ("referrers", "browsers", "os", "devices", "countries")
BOTS = "bots"
UNKNOWN = "Unknown"
DIRECT = "Direct"
NAME_MAX = VisitBreakdown._meta.get_field("name").max_length
USER_AGENT_MAX = 512
# A chosen date range is at most this long: the page reads at most this many days of rows.
RANGE_MAX_DAYS = 366
# The rows of a dimension shown; the rest are summed as "Other".
TOP = 20

COUNTRY_CREDIT = (
    "Countries from the Regional Internet Registries' delegation data (AFRINIC, APNIC, ARIN, LACNIC, "
    "RIPE NCC), as shipped by the iptocc package: the country a block of addresses was assigned to."
)
USER_AGENT_CREDIT = "Browsers, systems and devices by ua-parser with the uap-core rules (Apache License 2.0)."


def _country(address: str) -> str:
    from iptocc import country_code  # a few hundred kB of table, loaded on the first visit

    try:
        return country_code(address) or ""
    except Exception:  # an address iptocc cannot read is an unknown country, never a failed redirect
        return ""


def visit_details(request: HttpRequest) -> VisitDetails:
    meta = request.META
    return (
        meta.get("HTTP_USER_AGENT", "")[:USER_AGENT_MAX],
        meta.get("HTTP_REFERER", "")[:USER_AGENT_MAX],
        _country(client_ip(request)),
    )


@lru_cache(maxsize=4096)
def _parse(user_agent: str):
    from ua_parser import parse  # its rules take a tenth of a second to load: in the writer, once

    return parse(user_agent)


def _device(user_agent: str, os_family: str, device_family: str) -> str:
    lowered = user_agent.lower()
    if device_family == "Spider":
        return "Bot"
    if "ipad" in lowered or "tablet" in lowered or (os_family == "Android" and "mobile" not in lowered):
        return "Tablet"
    if "mobi" in lowered or os_family in {"iOS", "Android", "Windows Phone", "KaiOS"}:
        return "Mobile"
    if not user_agent:
        return UNKNOWN
    return "Desktop"


@lru_cache(maxsize=4096)
def user_agent_names(user_agent: str) -> tuple[str, str, str]:
    """(browser, operating system, device type) of a User-Agent; "Unknown" when it tells nothing."""
    if not user_agent:
        return UNKNOWN, UNKNOWN, UNKNOWN
    result = _parse(user_agent)
    browser = result.user_agent.family if result.user_agent else UNKNOWN
    os_family = result.os.family if result.os else UNKNOWN
    device_family = result.device.family if result.device else ""
    browser = UNKNOWN if browser == "Other" else browser
    os_family = UNKNOWN if os_family == "Other" else os_family
    return browser[:NAME_MAX], os_family[:NAME_MAX], _device(user_agent, os_family, device_family)


def referrer_name(referer: str) -> str:
    """The referring site's host (without `www.`), "Direct" without a Referer."""
    if not referer:
        return DIRECT
    try:
        host = (urlsplit(referer).hostname or "").lower()
    except ValueError:
        host = ""
    host = host.removeprefix("www.")
    return host[:NAME_MAX] or UNKNOWN


@lru_cache(maxsize=4096)
def breakdown_names(details: VisitDetails) -> tuple[tuple[str, str], ...]:
    """The (dimension, name) pairs a new visit adds one to.

    Cached: the visits of a batch share few User-Agent, Referer and country triples, and the
    batch writer runs in the web server's processes, where its Python time is taken from the
    request threads (it holds the GIL).
    """
    user_agent, referer, country = details
    browser, os_family, device = user_agent_names(user_agent)
    return (
        ("referrers", referrer_name(referer)),
        ("browsers", browser),
        ("os", os_family),
        ("devices", device),
        ("countries", country or UNKNOWN),
    )


def bot_name(user_agent: str) -> str:
    browser, _os, _device = user_agent_names(user_agent)
    return browser


def link_breakdowns(link_id: int, first: datetime.date, last: datetime.date) -> dict[str, list[dict]]:
    """Each dimension's `[{name, visits}]` over the days first..last, most first, and the bots apart.

    Reads the per-day rows (at most days times names of the link), never the visits.
    """
    rows = (
        VisitBreakdown.objects.filter(link_id=link_id, day__gte=first, day__lte=last)
        .values("dimension", "name")
        .annotate(total=Sum("visits"))
        .order_by("dimension", "-total", "name")
    )
    result: dict[str, list[dict]] = {dimension: [] for dimension in (*DIMENSIONS, BOTS)}
    for row in rows:
        if row["dimension"] in result:
            result[row["dimension"]].append({"name": row["name"], "visits": row["total"]})
    for dimension, items in result.items():
        if len(items) > TOP:
            other = sum(item["visits"] for item in items[TOP - 1 :])
            result[dimension] = [*items[: TOP - 1], {"name": "Other", "visits": other}]
    return result
