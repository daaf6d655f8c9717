from django.conf import settings
from rest_framework.exceptions import Throttled
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from common import ratelimit
from common.http import client_ip

PERIOD = 60


class PasteRateThrottle(BaseThrottle):
    """Requests per minute: writes per API key, reads per key or, without one, per client address."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        if request.method in ("GET", "HEAD", "OPTIONS"):
            scope, limit = "read", settings.PASTES_READ_RATE_LIMIT
        else:
            scope, limit = "write", settings.PASTES_WRITE_RATE_LIMIT
        who = f"key:{request.auth.pk}" if request.auth is not None else f"ip:{client_ip(request)}"
        result = ratelimit.hit(f"pastes:{scope}:{who}", limit=limit, period=PERIOD)
        if not result.allowed:
            raise Throttled(
                wait=result.retry_after,
                detail=f"Rate limit exceeded: at most {limit} {scope} requests per minute.",
            )
        return True
