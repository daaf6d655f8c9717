"""Statistics breakdowns: where a link's visitors came from, with what, and from which country.

What a visit keeps for them (`VisitDetails`) is taken from its request: the User-Agent, the
Referer and the country of the client address, looked up at once in an offline table (the
`iptocc` package: the five Regional Internet Registries' delegation files, public data, shipped
inside the wheel; no network). The address itself is never kept, not even in the visit buffer.
The User-Agent is read by `ua-parser` with the uap-core rules (`ua-parser-builtins`), when the
batch writer runs, not during the redirect; the writer adds each new visit to three rows
(`VisitBreakdown`): its referrer, its country and its agent, the browser, operating system and
device together, in the transaction that counts it (shortener/fastpath/visits.py). So each
dimension adds up to the link's unique visits of those days, whatever was pruned.

The three parts of a User-Agent share one row because every row costs the visit writer an
upsert in PostgreSQL, during which the web process's redirects share the CPU with it, while a
link's visitors use few combinations of the three (bench/README.md, "Fewer rows a visit").
Rows written before that (dimensions "browsers", "os" and "devices", one part each) are read
beside the combined ones, so no history is rewritten.
"""

import datetime
from collections import Counter
from functools import lru_cache
from urllib.parse import urlsplit

from django.db import connection
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from common.http import client_ip
from shortener.models import VisitBreakdown

# (User-Agent, Referer, country code[, rule]): what a new visit brings to the batch writer. The
# fourth item, only for a link with redirect rules, names the rule it followed (shortener/rules.py).
type VisitDetails = tuple[str, str, str] | tuple[str, str, str, str]
NO_DETAILS: VisitDetails = ("", "", "")

# The JSON keys (and the page's tables), in the page's order.
DIMENSIONS = ("referrers", "browsers", "os", "devices", "countries")
BOTS = "bots"
RULES = "rules"  # shortener.rules.DIMENSION
# The stored dimension of browser, OS and device together: "Firefox\x1fLinux\x1fDesktop".
AGENTS = "agents"
AGENT_PARTS = ("browsers", "os", "devices")
AGENT_SEPARATOR = "\x1f"  # a control character: never in a header, removed from the parts anyway
UNKNOWN = "Unknown"
DIRECT = "Direct"
OTHER = "Other"
NAME_MAX = VisitBreakdown._meta.get_field("name").max_length
# Each of browser and OS in a combined name; the device type is at most 7 characters.
AGENT_PART_MAX = (NAME_MAX - 2 - 7) // 2
USER_AGENT_MAX = 512
# A chosen date range is at most this long: the page reads at most this many days of rows.
RANGE_MAX_DAYS = 366
# The rows of a dimension shown; the rest are summed as "Other".
TOP = 20

# Shown on the statistics page, in the reader's language.
COUNTRY_CREDIT = _(
    "Countries from the Regional Internet Registries' delegation data (AFRINIC, APNIC, ARIN, LACNIC, "
    "RIPE NCC), as shipped by the iptocc package: the country a block of addresses was assigned to."
)
USER_AGENT_CREDIT = _("Browsers, systems and devices by ua-parser with the uap-core rules (Apache License 2.0).")


def country_code(address: str) -> str:
    from iptocc import country_code as lookup  # a few hundred kB of table, loaded on the first visit

    try:
        return lookup(address) or ""
    except Exception:  # an address iptocc cannot read is an unknown country, never a failed redirect
        return ""


def visit_details(request: HttpRequest, rule: str = "") -> VisitDetails:
    meta = request.META
    details = (
        meta.get("HTTP_USER_AGENT", "")[:USER_AGENT_MAX],
        meta.get("HTTP_REFERER", "")[:USER_AGENT_MAX],
        country_code(client_ip(request)),
    )
    return (*details, rule) if rule else details


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


def agent_name(browser: str, os_family: str, device: str) -> str:
    """The stored name of a (browser, OS, device) combination; agent_parts() reads it back."""

    def part(name: str) -> str:
        return name.replace(AGENT_SEPARATOR, " ")[:AGENT_PART_MAX]

    return AGENT_SEPARATOR.join((part(browser), part(os_family), part(device)))


def agent_parts(name: str) -> tuple[str, str, str]:
    """(browser, OS, device) of a stored agent name."""
    browser, os_family, device, *_ = [*name.split(AGENT_SEPARATOR, 2), UNKNOWN, UNKNOWN]
    return browser, os_family, device


@lru_cache(maxsize=4096)
def breakdown_names(details: VisitDetails) -> tuple[tuple[str, str], ...]:
    """The (dimension, name) pairs of the rows a new visit adds one to.

    Cached: the visits of a batch share few User-Agent, Referer and country triples, and the
    batch writer runs in the web server's processes, where its Python time is taken from the
    request threads (it holds the GIL).
    """
    user_agent, referer, country, *rule = details
    browser, os_family, device = user_agent_names(user_agent)
    names = (
        ("referrers", referrer_name(referer)),
        (AGENTS, agent_name(browser, os_family, device)),
        ("countries", country or UNKNOWN),
    )
    # A link with redirect rules also counts which rule (or none: "default") sent the visitor.
    return (*names, (RULES, rule[0])) if rule and rule[0] else names


def bot_name(user_agent: str) -> str:
    browser, _os, _device = user_agent_names(user_agent)
    return browser


BREAKDOWN_SQL = (
    f"SELECT dimension, name, SUM(visits) FROM {VisitBreakdown._meta.db_table}"
    " WHERE link_id = %s AND day >= %s AND day <= %s GROUP BY dimension, name"
)


def link_breakdowns(link_id: int, first: datetime.date, last: datetime.date) -> dict[str, list[dict]]:
    """Each dimension's `[{name, visits}]` over the days first..last, most first, and the bots apart.

    Reads the per-day rows (at most days times names of the link), never the visits.
    """
    # Raw SQL, as link_by_code: the ORM built this query in as much CPU time as the rest of the
    # statistics' JSON took. The same statement as values_list().annotate(Sum) made.
    ops = connection.ops
    with connection.cursor() as cursor:
        cursor.execute(BREAKDOWN_SQL, [link_id, ops.adapt_datefield_value(first), ops.adapt_datefield_value(last)])
        rows = [(dimension, name, int(total)) for dimension, name, total in cursor.fetchall()]
    totals: dict[str, Counter[str]] = {dimension: Counter() for dimension in (*DIMENSIONS, BOTS)}
    for dimension, name, total in rows:
        if dimension == AGENTS:
            for part, part_name in zip(AGENT_PARTS, agent_parts(name), strict=True):
                totals[part][part_name] += total
        elif dimension in totals:
            totals[dimension][name] += total
    result: dict[str, list[dict]] = {}
    for dimension, counts in totals.items():
        items = [{"name": name, "visits": visits} for name, visits in counts.items()]
        items.sort(key=lambda item: (-item["visits"], item["name"]))
        if len(items) > TOP:
            other = sum(item["visits"] for item in items[TOP - 1 :])
            items = [*items[: TOP - 1], {"name": OTHER, "visits": other}]
        result[dimension] = items
    return result
