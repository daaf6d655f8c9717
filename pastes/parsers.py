import io
from typing import Any

from django.conf import settings

from common.parsers import StrictJSONParser
from pastes.errors import PayloadTooLarge


class LimitedJSONParser(StrictJSONParser):
    """JSON bodies up to PASTES_MAX_BODY_BYTES; DRF itself reads the stream without a limit."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: dict | None = None) -> Any:
        limit = settings.PASTES_MAX_BODY_BYTES
        request = (parser_context or {}).get("request")
        declared = request.META.get("CONTENT_LENGTH", "") if request is not None else ""
        if declared.isdigit() and int(declared) > limit:
            raise PayloadTooLarge(f"The request body is too large: the limit is {limit} bytes.")
        # Read one byte past the limit, so a missing or wrong Content-Length cannot get a larger body in.
        body = stream.read(limit + 1)
        if len(body) > limit:
            raise PayloadTooLarge(f"The request body is too large: the limit is {limit} bytes.")
        return super().parse(io.BytesIO(body), media_type, parser_context)
