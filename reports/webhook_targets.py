"""Which URLs may receive a project's webhooks: checked when a webhook is added (reports/serializers.py).

Every delivery resolves and vets its target again before connecting (reports/webhooks.py).
"""

import ipaddress
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import URLValidator

from reports.analysis import netguard
from reports.analysis.errors import AnalysisError

# How long a creation waits for DNS when it vets the target (the delivery vets it again).
VET_TIMEOUT = 2.0


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
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        addresses = netguard.vetted_addresses(parts.hostname or "", port, timeout=VET_TIMEOUT, allow_private=True)
    except (AnalysisError, TimeoutError):
        return None
    for address in addresses:
        reason = netguard.forbidden_reason(ipaddress.ip_address(address))
        if reason:
            return f"The url points to a {reason} address ({address}); webhooks may only call public addresses."
    return None
