"""What `GET /stats/<code>?_format=json` adds for issue 23: the breakdowns over a date range."""

import datetime

from django.utils import timezone

DIMENSIONS = ("referrers", "browsers", "os", "devices", "countries", "bots")


def empty_breakdowns() -> dict[str, object]:
    """The breakdowns of a link without visits over the default range (the last 30 days)."""
    today = timezone.now().date()
    return {
        "from": (today - datetime.timedelta(days=29)).isoformat(),
        "to": today.isoformat(),
        **{dimension: [] for dimension in DIMENSIONS},
    }
