"""The redirect rules page, `/edit/<code>/rules`: add, reorder and remove a link's rules (issue 46).

A page without script: each rule is a row of fields, with one empty row to add a rule; "Move up",
"Move down" and "Remove" are submit buttons of the same form, so every change also saves the
other rows as typed. Saved through the edit service (services/editing.py), checked as the JSON
`rules` of `/a` and `/edit/<code>` are (shortener/rules.py).
"""

import datetime
from urllib.parse import quote, unquote_plus

import orjson
from django.contrib import messages as flash
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from shortener import messages
from shortener.errors import Failure
from shortener.messages import localized
from shortener.models import ShortLink
from shortener.negotiation import endpoint, request_data, wants_json
from shortener.responses import success
from shortener.rules import DEVICES, RULES_MAX
from shortener.services.editing import link_update
from shortener.views.base import login_required_response, short_url
from shortener.views.stats import owned_link

ROW_FIELDS = ("url", "device", "language", "country", "query", "after", "before")
LOCAL_TIME = "%Y-%m-%dT%H:%M"


def _query_text(query: dict[str, str | None]) -> str:
    return "&".join(quote(name) if value is None else f"{quote(name)}={quote(value)}" for name, value in query.items())


def _query_dict(text: str) -> dict[str, str | None]:
    """`a=1&b` → {"a": "1", "b": None}: a name without `=` asks only that the parameter be there."""
    query: dict[str, str | None] = {}
    for part in text.strip().split("&"):
        if not part:
            continue
        name, equals, value = part.partition("=")
        query[unquote_plus(name)] = unquote_plus(value) if equals else None
    return query


def _row(rule: dict) -> dict[str, str]:
    """A stored rule as the page's fields (times in UTC, as datetime-local shows them)."""
    when = rule["when"]
    row = {"url": rule["url"], **{key: when.get(key, "") for key in ("device", "language", "country")}}
    row["query"] = _query_text(when["query"]) if "query" in when else ""
    for key in ("after", "before"):
        row[key] = datetime.datetime.fromisoformat(when[key]).strftime(LOCAL_TIME) if key in when else ""
    return row


def _rule(row: dict[str, str]) -> dict:
    """The page's fields as a rule for the checker (empty fields are no condition)."""
    when: dict[str, object] = {key: row[key].strip() for key in ("device", "language", "country") if row[key].strip()}
    if row["query"].strip():
        when["query"] = _query_dict(row["query"])
    for key in ("after", "before"):
        if row[key].strip():
            when[key] = row[key].strip()  # ISO 8601 without an offset: UTC, as the page says
    return {"when": when, "url": row["url"]}


def _posted_rows(data: dict[str, str]) -> list[dict[str, str]]:
    try:
        count = min(int(data.get("rule-count", "0")), RULES_MAX + 1)
    except ValueError:
        count = 0
    rows = [{field: data.get(f"rule-{index}-{field}", "") for field in ROW_FIELDS} for index in range(count + 1)]
    # The last row is the empty one for a new rule: left empty, it adds nothing.
    if not any(value.strip() for value in rows[-1].values()):
        rows.pop()
    return rows


def _apply_action(rows: list[dict[str, str]], action: str) -> list[dict[str, str]]:
    verb, _sep, raw_index = action.partition("-")
    if verb not in ("up", "down", "remove") or not raw_index.isdigit() or int(raw_index) >= len(rows):
        return rows
    index = int(raw_index)
    if verb == "remove":
        return rows[:index] + rows[index + 1 :]
    other = index - 1 if verb == "up" else index + 1
    if 0 <= other < len(rows):
        rows[index], rows[other] = rows[other], rows[index]
    return rows


def _page(request: HttpRequest, link: ShortLink, rows: list[dict[str, str]], error: str = "", status: int = 200):
    devices = [("", _("Any device")), *((device, device) for device in DEVICES)]
    empty = dict.fromkeys(ROW_FIELDS, "")
    context = {
        "link": link,
        "short": short_url(request, link.code),
        "rows": rows,
        "new_row": empty,
        "new_index": len(rows),
        "can_add": len(rows) < RULES_MAX,
        "devices": devices,
        "error": error,
    }
    return render(request, "shortener/rules.html", context, status=status)


@endpoint("GET", "HEAD", "POST", csrf=True)
def rules_page(request: HttpRequest, code: str) -> HttpResponse:
    if not request.user.is_authenticated:
        return login_required_response(request)
    link = owned_link(request, code)
    if request.method in ("GET", "HEAD"):
        if wants_json(request):
            return success(short=short_url(request, code), rules=link.rules)
        return _page(request, link, [_row(rule) for rule in link.rules])
    data = request_data(request)
    if wants_json(request):
        link_update(link=link, data={"rules": data.get("rules", "")}, short=short_url(request, code))
        return success(short=short_url(request, code), rules=link.rules)
    rows = _apply_action(_posted_rows(data), data.get("action", "save"))
    try:
        rules = orjson.dumps([_rule(row) for row in rows]).decode()
        link_update(link=link, data={"rules": rules}, short=short_url(request, code))
    except Failure as failure:
        fresh = ShortLink.objects.get(pk=link.pk)
        return _page(request, fresh, rows, failure.msg, failure.status)
    flash.success(request, localized(messages.RULES_SAVED.format(short=short_url(request, code))))
    return redirect("shortener:edit-rules", code=code)
