"""Strict JSON request bodies for every interface, parsed by orjson.

The standard library's parser recurses once per nesting level (a 10,000-deep array is
a RecursionError, so a 500), turns an escaped unpaired surrogate ("\\ud800") into a
string that cannot be encoded again (a UnicodeEncodeError wherever it is written),
and reads 1e400 as infinity. orjson refuses all three as malformed JSON, and it
stops at 1,024 levels without recursing in Python; no request of ours nests deeper
than MAX_DEPTH, so anything deeper is refused too, before a view walks it.
"""

from typing import Any

import orjson
from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

# Our deepest legitimate body is an object holding a list of scalars.
MAX_DEPTH = 32


class MalformedJSON(ValueError):
    """The body is not JSON we accept; the message says why, for the client."""


def _too_deep(value: Any) -> bool:
    # Iterative, so that the check itself cannot overflow the stack.
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(item, dict):
            pending.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            pending.extend((child, depth + 1) for child in item)
    return False


def loads(body: bytes | str) -> Any:
    """Parse a request body as JSON, or raise MalformedJSON naming the problem."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        reason = exc.args[0].split(":", 1)[0]
        if "surrogate" in reason:
            reason = "an unpaired surrogate escape (\\ud800-\\udfff) is not valid text"
        raise MalformedJSON(f"JSON parse error - {reason}.") from None
    if _too_deep(data):
        raise MalformedJSON(f"JSON parse error - nested deeper than {MAX_DEPTH} levels.")
    return data


class StrictJSONParser(BaseParser):
    """DRF's JSONParser, refusing what `loads` refuses (as a ParseError, so a 400)."""

    media_type = "application/json"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: dict | None = None) -> Any:
        body = stream.read() if stream is not None else b""
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        if encoding.lower().replace("-", "") != "utf8":
            try:
                body = body.decode(encoding)
            except (LookupError, UnicodeDecodeError):
                raise ParseError(f"The body is not valid {encoding}.") from None
        try:
            return loads(body)
        except MalformedJSON as exc:
            raise ParseError(str(exc)) from None
