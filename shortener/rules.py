"""Redirect rules (issue 46): parsed and checked once when saved, compiled once per cached copy,
evaluated per visit from that copy with no query.

A link's `rules` are `[{"when": {…}, "url": "https://…"}]`, evaluated in order: the first rule
whose conditions all hold sends the visitor to its `url`, else the link's own URL does. The
conditions (`when` keys):

- `device`: `ios`, `android` or `desktop`, from the User-Agent with the parser the statistics use
  (ua-parser; its answers are cached per User-Agent, so a visit rarely parses);
- `language`: `fr` (any French) or `fr-CA`, matched against `Accept-Language` in the visitor's
  order of preference: a rule for a language the visitor prefers wins over an earlier rule for
  one they accept less (rules without `language`, and ties, keep their order);
- `country`: ISO 3166 alpha-2, from the offline table the statistics use (iptocc);
- `query`: `{"name": "value"}` (equal) or `{"name": null}` (present), each name must hold;
- `after` / `before`: ISO 8601 (UTC unless an offset is given); `after` ≤ now < `before`.

Each rule has a key (a digest of its conditions and URL) under which its visits are counted
in the statistics breakdowns (dimension `rules`, written with the visit in the writer's
transaction): reordering rules keeps their counts; changing a rule starts a new one.
"""

import datetime
import hashlib
import re
import time
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import orjson
from django.http import HttpRequest

from common.http import client_ip
from shortener import messages
from shortener.errors import Failure
from shortener.services.breakdowns import country_code, user_agent_names
from shortener.services.links import clean_url

RULES_MAX = 20
QUERY_NAMES_MAX = 10
QUERY_PART_MAX = 200
DEVICES = ("ios", "android", "desktop")
CONDITIONS = ("device", "language", "country", "query", "after", "before")
LANGUAGE_RE = re.compile(r"([A-Za-z]{2,3})(?:-([A-Za-z0-9]{2,8}))?")
COUNTRY_RE = re.compile(r"[A-Za-z]{2}")
# The breakdown dimension of the per-rule counts, and the name of "no rule matched".
DIMENSION = "rules"
FALLBACK = "default"


def _fail(number: int, problem: str) -> Failure:
    return Failure(messages.RULE_INVALID.format(number=number, problem=problem))


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and "\x00" not in value else None


def _when_time(number: int, key: str, value: object) -> str:
    text = _text(value)
    try:
        moment = datetime.datetime.fromisoformat(text.strip()) if text else None
    except ValueError:
        moment = None
    if moment is None:
        raise _fail(number, messages.RULE_TIME_INVALID.format(key=key))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.astimezone(datetime.UTC).isoformat()


def _clean_language(number: int, value: object) -> str:
    match = LANGUAGE_RE.fullmatch(_text(value) or "")
    if not match:
        raise _fail(number, messages.RULE_LANGUAGE_INVALID)
    language, region = match.group(1).lower(), match.group(2)
    return f"{language}-{region.upper() if len(region) == 2 else region}" if region else language


def _clean_query(number: int, value: object) -> dict[str, str | None]:
    if not isinstance(value, dict) or not 1 <= len(value) <= QUERY_NAMES_MAX:
        raise _fail(number, messages.RULE_QUERY_INVALID.format(limit=QUERY_NAMES_MAX))
    cleaned: dict[str, str | None] = {}
    for name, wanted in value.items():
        if not _text(name) or len(name) > QUERY_PART_MAX:
            raise _fail(number, messages.RULE_QUERY_NAME_INVALID.format(limit=QUERY_PART_MAX))
        if wanted is not None and (_text(wanted) is None or len(wanted) > QUERY_PART_MAX):
            raise _fail(number, messages.RULE_QUERY_VALUE_INVALID.format(name=name, limit=QUERY_PART_MAX))
        cleaned[name] = wanted
    return cleaned


def _clean_when(number: int, when: object) -> dict:
    if not isinstance(when, dict) or not when:
        raise _fail(number, messages.RULE_WHEN_INVALID.format(conditions=", ".join(CONDITIONS)))
    unknown = sorted(set(when) - set(CONDITIONS))
    if unknown:
        known = ", ".join(CONDITIONS)
        raise _fail(number, messages.RULE_CONDITION_UNKNOWN.format(condition=unknown[0], conditions=known))
    cleaned: dict = {}
    if "device" in when:
        device = (_text(when["device"]) or "").lower()
        if device not in DEVICES:
            raise _fail(number, messages.RULE_DEVICE_INVALID.format(devices=", ".join(DEVICES)))
        cleaned["device"] = device
    if "language" in when:
        cleaned["language"] = _clean_language(number, when["language"])
    if "country" in when:
        country = _text(when["country"]) or ""
        if not COUNTRY_RE.fullmatch(country):
            raise _fail(number, messages.RULE_COUNTRY_INVALID)
        cleaned["country"] = country.upper()
    if "query" in when:
        cleaned["query"] = _clean_query(number, when["query"])
    for key in ("after", "before"):
        if key in when:
            cleaned[key] = _when_time(number, key, when[key])
    if "after" in cleaned and "before" in cleaned and cleaned["after"] >= cleaned["before"]:
        raise _fail(number, messages.RULE_TIMES_REVERSED)
    return cleaned


def clean_rules(raw: object) -> list[dict]:
    """The rules as stored, from a list (a JSON body) or its JSON text (a form field); Failure(400) if wrong.

    An empty string or list removes every rule. Each `url` is checked as the link's own.
    """
    if isinstance(raw, str):
        if not raw.strip():
            return []
        try:
            raw = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise Failure(messages.RULES_NOT_JSON) from None
    if not isinstance(raw, list):
        raise Failure(messages.RULES_NOT_JSON)
    if len(raw) > RULES_MAX:
        raise Failure(messages.RULES_TOO_MANY.format(limit=RULES_MAX))
    rules = []
    for number, rule in enumerate(raw, start=1):
        if not isinstance(rule, dict) or set(rule) - {"when", "url"} or "url" not in rule:
            raise _fail(number, messages.RULE_NOT_AN_OBJECT)
        when = _clean_when(number, rule.get("when"))
        url = _text(rule["url"])
        if url is None:
            raise _fail(number, messages.RULE_URL_NOT_TEXT)
        try:
            url = clean_url(url)
        except Failure as failure:
            raise Failure(messages.RULE_INVALID.format(number=number, problem=failure.msg), failure.status) from None
        rules.append({"when": when, "url": url})
    return rules


def rule_key(rule: dict) -> str:
    """The name its visits are counted under: the same rule (conditions and URL) keeps it when moved."""
    return hashlib.sha256(orjson.dumps(rule, option=orjson.OPT_SORT_KEYS)).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class CompiledRule:
    key: str
    url: str
    device: str | None = None
    language: str | None = None
    country: str | None = None
    query: tuple[tuple[str, str | None], ...] = ()
    after: float | None = None
    before: float | None = None


def compile_rules(rules: list[dict] | str | None) -> tuple[CompiledRule, ...]:
    """What the redirect evaluates, made once per cached copy of the link (a raw SELECT may give text)."""
    if isinstance(rules, str):
        rules = orjson.loads(rules)
    compiled = []
    for rule in rules or ():
        when = rule["when"]
        compiled.append(
            CompiledRule(
                key=rule_key(rule),
                url=rule["url"],
                device=when.get("device"),
                language=when.get("language"),
                country=when.get("country"),
                query=tuple((when.get("query") or {}).items()),
                after=datetime.datetime.fromisoformat(when["after"]).timestamp() if "after" in when else None,
                before=datetime.datetime.fromisoformat(when["before"]).timestamp() if "before" in when else None,
            )
        )
    return tuple(compiled)


@lru_cache(maxsize=4096)
def device_of(user_agent: str) -> str | None:
    """`ios`, `android`, `desktop` or None (a robot, a tablet or phone of another system, nothing said)."""
    _browser, os_family, device = user_agent_names(user_agent)
    if os_family in ("iOS", "iPadOS"):
        return "ios"
    if os_family == "Android":
        return "android"
    return "desktop" if device == "Desktop" else None


@lru_cache(maxsize=4096)
def languages_of(accept_language: str) -> tuple[str, ...]:
    """The visitor's language tags, most preferred first (q=0 dropped, ties in the header's order)."""
    weighted = []
    for position, part in enumerate(accept_language.split(",")[:32]):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                quality = float(params[2:])
            except ValueError:
                continue
        if tag and tag != "*" and quality > 0:
            weighted.append((-quality, position, tag.strip().lower()))
    return tuple(tag for _q, _p, tag in sorted(weighted))


def _language_rank(wanted: str, visitor: tuple[str, ...]) -> int | None:
    wanted = wanted.lower()
    for rank, tag in enumerate(visitor):
        if tag == wanted or (("-" not in wanted) and tag.startswith(wanted + "-")):
            return rank
    return None


def _country(request: HttpRequest) -> str:
    return country_code(client_ip(request))


def matching_rule(rules: tuple[CompiledRule, ...], request: HttpRequest) -> CompiledRule | None:
    """The rule this request follows, or None (the link's own URL). Reads only the request."""
    meta = request.META
    now = time.time()
    country: str | None = None
    best: tuple[int, int] | None = None
    chosen = None
    for index, rule in enumerate(rules):
        if rule.after is not None and now < rule.after:
            continue
        if rule.before is not None and now >= rule.before:
            continue
        if rule.device is not None and device_of(meta.get("HTTP_USER_AGENT", "")) != rule.device:
            continue
        if rule.query and not _query_holds(rule.query, request):
            continue
        if rule.country is not None:
            if country is None:
                country = _country(request)
            if country != rule.country:
                continue
        rank = 0
        if rule.language is not None:
            found = _language_rank(rule.language, languages_of(meta.get("HTTP_ACCEPT_LANGUAGE", "")[:1000]))
            if found is None:
                continue
            rank = found
        if best is None or (rank, index) < best:
            best, chosen = (rank, index), rule
        if rank == 0:
            break  # nothing later can come before it
    return chosen


def _query_holds(wanted: tuple[tuple[str, str | None], ...], request: HttpRequest) -> bool:
    given = request.GET
    for name, value in wanted:
        if name not in given:
            return False
        if value is not None and value not in given.getlist(name):
            return False
    return True


def with_extra_path(url: str, extra: str) -> str:
    """`/<code>/extra/path` forwarded: the target's path gets `extra/path` (one slash between them)."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/") + "/" + extra.lstrip("/")
    return urlunsplit(parts._replace(path=path))


def with_query(url: str, query_string: str) -> str:
    """The visitor's query merged into the target's: theirs win for a name both have; `_format` stays here."""
    visitor = [(name, value) for name, value in parse_qsl(query_string, keep_blank_values=True) if name != "_format"]
    if not visitor:
        return url
    parts = urlsplit(url)
    names = {name for name, _ in visitor}
    kept = [(name, value) for name, value in parse_qsl(parts.query, keep_blank_values=True) if name not in names]
    return urlunsplit(parts._replace(query=urlencode(kept + visitor)))
