"""A JSON renderer for the APIs' hot paths: DRF's output, written by orjson.

DRF's JSONRenderer runs the standard library's encoder and then copies the result
twice (the \\u2028 escapes and the encode to bytes); orjson writes the same compact
UTF-8 several times faster, which matters for a report list carrying 25 reports of
about 50 checks each. Types orjson does not know, and dates (which DRF writes in its
own format), go to DRF's encoder, so every object renders as DRF would render it.

RawJSON carries JSON text that is already written, such as a JSON column as the
database returns it: it goes into the output as it is, never decoded and encoded again.
"""

import json
from typing import Any

import orjson
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.utils.encoders import JSONEncoder

OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME


class RawJSON:
    """A JSON document as text, rendered verbatim (its whitespace included)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class RawJSONEncoder(JSONEncoder):
    """DRF's encoder, also for RawJSON (decoded, for the indented output DRF writes)."""

    def default(self, obj: Any) -> Any:
        if isinstance(obj, RawJSON):
            return json.loads(obj.text)
        return super().default(obj)


_drf_default = RawJSONEncoder().default


def _default(obj: Any) -> Any:
    if isinstance(obj, RawJSON):
        return orjson.Fragment(obj.text)
    return _drf_default(obj)


class FastJSONRenderer(JSONRenderer):
    encoder_class = RawJSONEncoder

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: dict | None = None) -> bytes:
        if data is None:
            return b""
        # Indented or ASCII-only output is DRF's to write; orjson writes only compact UTF-8.
        if (
            self.ensure_ascii
            or not self.compact
            or self.get_indent(accepted_media_type, renderer_context or {}) is not None
        ):
            return super().render(data, accepted_media_type, renderer_context)
        try:
            rendered = orjson.dumps(data, default=_default, option=OPTIONS)
        except orjson.JSONEncodeError:  # e.g. an integer past 64 bits, which only DRF writes
            return super().render(data, accepted_media_type, renderer_context)
        # As DRF does, escape U+2028 and U+2029 so the JSON is also valid JavaScript.
        return rendered.replace("\u2028".encode(), b"\\u2028").replace("\u2029".encode(), b"\\u2029")


class JSONOnlyNegotiation(DefaultContentNegotiation):
    """Always answer with the view's first renderer, whatever Accept asks for (no 406 for browsers and curl)."""

    def select_renderer(
        self, request: Request, renderers: list[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        return renderers[0], renderers[0].media_type
