"""Checking Lstu's `qrcode` field: a base64 PNG of the QR code of the short URL."""

import base64
import io

import segno

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def assert_png_qr_of(qrcode: str, text: str) -> None:
    png = base64.b64decode(qrcode, validate=True)
    assert png.startswith(PNG_SIGNATURE)
    # No QR decoder here: compare with a fresh PNG of the same text, whose modules segno computed.
    expected = io.BytesIO()
    segno.make(text, error="m").save(expected, kind="png", scale=3, border=2)
    assert png == expected.getvalue()
