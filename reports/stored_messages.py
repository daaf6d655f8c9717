"""The English sentences the analysis stores, in the reader's language.

A check's result keeps some sentences as text (a probe's fetch error, a weakness of a Content
Security Policy, a placeholder such as "(no src)"), and the API serves them in English, word for
word. Pages show them translated: each sentence the engine writes has a pattern here that finds its
variable parts (a host, a status, an OS error's own words, which stay as they are) and puts them into
the translated sentence. A text that matches no pattern (a page's own words) is shown as stored.
"""

import re
from collections.abc import Callable

from django.utils.formats import number_format
from django.utils.translation import get_language, gettext, ngettext

Translate = Callable[[re.Match], str]


def _seconds(match: re.Match) -> str:
    seconds = float(match["seconds"])
    count = int(seconds) if seconds == int(seconds) else 2
    shown = number_format(int(seconds) if seconds == int(seconds) else seconds)
    duration = ngettext("%(count)s second", "%(count)s seconds", count) % {"count": shown}
    return gettext("The page did not answer within %(duration)s.") % {"duration": duration}


def _redirects(match: re.Match) -> str:
    count = int(match["count"])
    return ngettext(
        "The URL redirected more than %(count)s time.", "The URL redirected more than %(count)s times.", count
    ) % {"count": count}


# (pattern of the English sentence, its translation); the patterns mirror the messages of
# reports/analysis (fetch.py, netguard.py, decoding.py, engine.py and the checks).
MESSAGES: list[tuple[str, Translate]] = [
    # Fetching (a sub-resource's probe, robots.txt, the 404 probe, ALPN).
    (r"The page did not answer within (?P<seconds>[\d.]+) seconds?\.", _seconds),
    (r"The URL redirected more than (?P<count>\d+) times\.", _redirects),
    (
        r"Could not open a TLS connection to (?P<host>\S+): (?P<reason>.*)\.",
        lambda m: gettext("Could not open a TLS connection to %(host)s: %(reason)s.") % m.groupdict(),
    ),
    (
        r"The TLS handshake with (?P<host>\S+) failed \((?P<reason>.*)\)\.",
        lambda m: gettext("The TLS handshake with %(host)s failed (%(reason)s).") % m.groupdict(),
    ),
    (
        r"Could not connect to (?P<host>\S+) \((?P<reason>.*)\)\.",
        lambda m: gettext("Could not connect to %(host)s (%(reason)s).") % m.groupdict(),
    ),
    (
        r"The URL redirected to an invalid address \((?P<reason>.*)\)\.",
        lambda m: gettext("The URL redirected to an invalid address (%(reason)s).") % m.groupdict(),
    ),
    (
        r"The connection to (?P<host>\S+) failed \((?P<reason>.*)\)\.",
        lambda m: gettext("The connection to %(host)s failed (%(reason)s).") % m.groupdict(),
    ),
    (
        r"Fetching from (?P<host>\S+) failed \((?P<reason>.*)\)\.",
        lambda m: gettext("Fetching from %(host)s failed (%(reason)s).") % m.groupdict(),
    ),
    (r"(?P<url>'.*'|\".*\") is not a valid URL\.", lambda m: gettext("%(url)s is not a valid URL.") % m.groupdict()),
    (
        r"The URL redirected to (?P<url>\S+), which is not an http or https address\.",
        lambda m: gettext("The URL redirected to %(url)s, which is not an http or https address.") % m.groupdict(),
    ),
    (r"Only http and https URLs can be analysed\.", lambda m: gettext("Only http and https URLs can be analysed.")),
    (r"The URL has no host name\.", lambda m: gettext("The URL has no host name.")),
    (
        r"The port (?P<port>\S+) is not a valid port number\.",
        lambda m: gettext("The port %(port)s is not a valid port number.") % m.groupdict(),
    ),
    (
        r"The URL does not point to an HTML page \(content type (?P<type>.*)\)\.",
        lambda m: gettext("The URL does not point to an HTML page (content type %(type)s).") % m.groupdict(),
    ),
    (
        r"The page is larger than the (?P<size>\S+ (?:MB|kB|bytes)) limit\.",
        lambda m: gettext("The page is larger than the %(size)s limit.") % m.groupdict(),
    ),
    (
        r"The address (?P<address>\S+) is private; fetching it is not allowed\.",
        lambda m: gettext("The address %(address)s is private; fetching it is not allowed.") % m.groupdict(),
    ),
    (r"Could not resolve host (?P<host>\S+)\.", lambda m: gettext("Could not resolve host %(host)s.") % m.groupdict()),
    (
        r"The answer from (?P<host>\S+) uses an unsupported compression \((?P<encoding>.*)\)\.",
        lambda m: gettext("The answer from %(host)s uses an unsupported compression (%(encoding)s).") % m.groupdict(),
    ),
    (
        r"The answer from (?P<host>\S+) is compressed incorrectly \((?P<reason>.*)\)\.",
        lambda m: gettext("The answer from %(host)s is compressed incorrectly (%(reason)s).") % m.groupdict(),
    ),
    (
        r"The page answered with HTTP status (?P<status>\d+) \((?P<reason>.*)\)\.",
        lambda m: gettext("The page answered with HTTP status %(status)s (%(reason)s).") % m.groupdict(),
    ),
    # The checks' own words (seo.py, security.py, html.py, accessibility.py, misc.py).
    (r"not checked", lambda m: gettext("not checked")),
    (
        r"robots\.txt answered HTTP (?P<status>\d+)",
        lambda m: gettext("robots.txt answered HTTP %(status)s") % m.groupdict(),
    ),
    (r"\(empty href\)", lambda m: gettext("(empty href)")),
    (r"\(no src\)", lambda m: gettext("(no src)")),
    (r"\(no URL\)", lambda m: gettext("(no URL)")),
    (
        r"no script-src or default-src: scripts are not restricted",
        lambda m: gettext("no script-src or default-src: scripts are not restricted"),
    ),
    (
        r"'unsafe-inline' allows injected inline scripts",
        lambda m: gettext("'unsafe-inline' allows injected inline scripts"),
    ),
    (
        r"(?P<source>\S+) allows scripts from anywhere",
        lambda m: gettext("%(source)s allows scripts from anywhere") % m.groupdict(),
    ),
]
_COMPILED = [(re.compile(pattern, re.DOTALL), translate) for pattern, translate in MESSAGES]


def translated(text: str) -> str:
    """`text` in the active language if the engine wrote it, else as it is."""
    if (get_language() or "en").split("-")[0] == "en":
        return text  # stored in English already
    for pattern, translate in _COMPILED:
        match = pattern.fullmatch(text)
        if match:
            return translate(match)
    return text
