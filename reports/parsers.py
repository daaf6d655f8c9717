import io
from typing import Any

from django.conf import settings
from rest_framework.exceptions import APIException

from common.parsers import StrictJSONParser


class RequestTooLarge(APIException):
    status_code = 413
    default_detail = "The request body is too large."


class LimitedJSONParser(StrictJSONParser):
    """JSON bodies up to REPORTS_MAX_REQUEST_BYTES (413 beyond); DRF itself reads the stream without a limit.

    A 300 MB `password` took 100 s and 1.3 GB of the worker to reach its 422. Served by
    config.asgi the body is refused before it is read; this holds under any other server.
    """

    def parse(self, stream: Any, media_type: str | None = None, parser_context: dict | None = None) -> Any:
        limit = settings.REPORTS_MAX_REQUEST_BYTES
        too_large = RequestTooLarge(f"The request body is too large: the limit is {limit} bytes.")
        request = (parser_context or {}).get("request")
        declared = request.META.get("CONTENT_LENGTH", "") if request is not None else ""
        if declared.isdigit() and int(declared) > limit:
            raise too_large
        # One byte past the limit, so that a missing or wrong Content-Length cannot get a larger body in.
        body = stream.read(limit + 1) if stream is not None else b""
        if len(body) > limit:
            raise too_large
        return super().parse(io.BytesIO(body), media_type, parser_context)
