"""A link's redirect options (issue 46): rules, forwarding, redirect status and preview.

Read from `POST /a`, `/edit/<code>` and imports (only the fields sent), checked, and given back in
JSON answers only when they differ from Lstu's behaviour (no rules, no forwarding, the server's
status, no preview), so that a plain link keeps Lstu's answer shape.
"""

from django.db.models import Sum

from shortener import messages
from shortener.errors import Failure
from shortener.models import REDIRECT_STATUSES, ShortLink, VisitBreakdown
from shortener.previews import FIELDS as PREVIEW_FIELDS
from shortener.previews import clean_preview_fields
from shortener.rules import DIMENSION, FALLBACK, clean_rules, rule_key

BOOLEAN_WORDS = {"1": True, "true": True, "on": True, "yes": True} | dict.fromkeys(("0", "false", "off", "no"), False)
REDIRECT_FIELDS = ("rules", "forward_query", "forward_path", "redirect_status")
OPTION_FIELDS = (*REDIRECT_FIELDS, *PREVIEW_FIELDS)
DEFAULTS = {
    "rules": [],
    "forward_query": False,
    "forward_path": False,
    "redirect_status": None,
    **dict.fromkeys(PREVIEW_FIELDS, ""),
}


def clean_boolean(field: str, raw: str) -> bool:
    value = BOOLEAN_WORDS.get(raw.strip().lower())
    if value is None:
        raise Failure(messages.BOOLEAN_INVALID.format(field=field))
    return value


def clean_redirect_status(raw: str) -> int | None:
    """301, 302, 307 or 308; empty: the server's default."""
    raw = raw.strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) not in REDIRECT_STATUSES:
        raise Failure(messages.REDIRECT_STATUS_INVALID.format(statuses=", ".join(map(str, REDIRECT_STATUSES))))
    return int(raw)


def clean_options(data: dict[str, str]) -> dict[str, object]:
    """The option fields present in `data`, as model field values; Failure(400) for any wrong one."""
    options: dict[str, object] = {}
    if "rules" in data:
        options["rules"] = clean_rules(data["rules"])
    for field in ("forward_query", "forward_path"):
        if field in data:
            options[field] = clean_boolean(field, data[field])
    if "redirect_status" in data:
        options["redirect_status"] = clean_redirect_status(data["redirect_status"])
    options.update(clean_preview_fields(data))
    return options


def differs(link: ShortLink, options: dict[str, object]) -> bool:
    """Whether `options` would change the link (creation then refuses to hand it back)."""
    return any(getattr(link, field) != value for field, value in options.items())


def non_default(options: dict[str, object]) -> dict[str, object]:
    return {field: value for field, value in options.items() if value != DEFAULTS[field]}


def option_fields(link: ShortLink) -> dict[str, object]:
    """The JSON answer's option keys, only those that differ from Lstu's behaviour."""
    fields: dict[str, object] = {}
    if link.rules:
        fields["rules"] = link.rules
    if link.forward_query:
        fields["forward_query"] = True
    if link.forward_path:
        fields["forward_path"] = True
    if link.redirect_status is not None:
        fields["redirect_status"] = link.redirect_status
    preview = {field.removeprefix("preview_"): getattr(link, field) for field in PREVIEW_FIELDS}
    if any(preview.values()):
        fields["preview"] = preview
    return fields


def rule_visits(link: ShortLink, first, last) -> tuple[list[dict], int]:
    """The link's rules each with the unique visits it sent over the days first..last, and the
    visits no rule matched (sent to the link's own URL), from the per-day breakdown rows."""
    counts = dict(
        VisitBreakdown.objects.filter(link_id=link.pk, dimension=DIMENSION, day__gte=first, day__lte=last)
        .values_list("name")
        .annotate(total=Sum("visits"))
        .order_by()
        .values_list("name", "total")
    )
    rules = [{**rule, "visits": counts.get(rule_key(rule), 0)} for rule in link.rules]
    return rules, counts.get(FALLBACK, 0)
