import uuid
from datetime import UTC, date, datetime
from decimal import Decimal

from django.utils.translation import gettext_lazy
from rest_framework.exceptions import ErrorDetail
from rest_framework.renderers import JSONRenderer

from common.renderers import FastJSONRenderer, RawJSON

PAYLOAD = {
    "text": 'Ünïcode ✓ "quoted" \\ back\nslash',
    "separators": "line\u2028paragraph\u2029end",
    "numbers": [0, -7, 2**40, 1.5, 0.1, True, False, None],
    "nested": {"list": [{"a": []}, {}], "tuple": (1, "two")},
    "when": datetime(2026, 11, 22, 16, 45, 30, 123456, tzinfo=UTC),
    "day": date(2026, 11, 22),
    "amount": Decimal("12.50"),
    "id": uuid.UUID("12345678-1234-5678-1234-567812345678"),
    "lazy": gettext_lazy("Not found."),
    "error": [ErrorDetail("This field is required.", code="required")],
    1: "integer key",
}


def test_fast_renderer_writes_the_same_bytes_as_drf():
    assert FastJSONRenderer().render(PAYLOAD) == JSONRenderer().render(PAYLOAD)


def test_fast_renderer_writes_integers_past_64_bits_as_drf_does():
    payload = {"page": 2**70}

    assert FastJSONRenderer().render(payload) == b'{"page":1180591620717411303424}'


def test_fast_renderer_indents_when_asked_as_drf_does():
    media_type = "application/json; indent=2"

    rendered = FastJSONRenderer().render(PAYLOAD, media_type)

    assert rendered == JSONRenderer().render(PAYLOAD, media_type)
    assert b'\n  "text"' in rendered


def test_fast_renderer_renders_nothing_for_no_data():
    assert FastJSONRenderer().render(None) == b""


def test_raw_json_is_written_as_it_is():
    payload = {"results": RawJSON('{"b": [1, 2], "a": "é"}'), "id": 1}

    assert FastJSONRenderer().render(payload) == '{"results":{"b": [1, 2], "a": "é"},"id":1}'.encode()


def test_raw_json_is_decoded_for_indented_output():
    payload = {"results": RawJSON('{"a": [1]}')}

    rendered = FastJSONRenderer().render(payload, "application/json; indent=1")

    assert rendered == b'{\n "results": {\n  "a": [\n   1\n  ]\n }\n}'
