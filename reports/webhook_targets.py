"""Which URLs may receive a project's webhooks: checked when a webhook is added (reports/serializers.py).

Every delivery resolves and vets its target again before connecting (reports/webhooks.py).
"""

from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import URLValidator

from reports.analysis import netguard


def refused_target(url: str) -> str | None:
    """Why `url` cannot receive webhooks (a message for its `url` field), or None if it can.

    The addresses are vetted with the SSRF guard's own rules (netguard) and the same
    private-network setting as report fetches. A host that does not resolve now is
    accepted: every delivery resolves and vets it again before connecting.
    """
    try:
        URLValidator(schemes=["http", "https"])(url)
    except DjangoValidationError:
        return "The url must be a valid http or https URL."
    parts = urlsplit(url)
    if "@" in parts.netloc:
        return "The url must not contain a user name or password."
    if settings.REPORTS_ALLOW_PRIVATE_NETWORKS:
        return None
    refused = netguard.refused_target(url)  # the delivery vets it again
    if refused:
        return f"The url points to {refused}; webhooks may only call public addresses."
    return None
