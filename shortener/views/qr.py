"""The QR code of a short link as a file to download: PNG or SVG, in a chosen size."""

import io
import re

import segno
from django.http import HttpRequest, HttpResponse

from shortener import messages
from shortener.errors import Failure
from shortener.negotiation import endpoint
from shortener.views.base import live_link, short_url

QR_MIN_SIZE, QR_MAX_SIZE = 64, 2048
# What the page offers; any size in the range may be asked for.
QR_SIZES = (128, 256, 512, 1024)
QR_DEFAULT_SIZE = 512
QUIET_ZONE = 2  # modules of white border
SIZE_RE = re.compile(r"[0-9]{1,5}")
CONTENT_TYPES = {"png": "image/png", "svg": "image/svg+xml"}


def _size(raw: str) -> int:
    if not raw:
        return QR_DEFAULT_SIZE
    if not SIZE_RE.fullmatch(raw) or not QR_MIN_SIZE <= int(raw) <= QR_MAX_SIZE:
        raise Failure(messages.QR_SIZE_INVALID.format(low=QR_MIN_SIZE, high=QR_MAX_SIZE))
    return int(raw)


@endpoint("GET", "HEAD")
def qr_download(request: HttpRequest, code: str, kind: str) -> HttpResponse:
    """`GET /qr/<code>.png` or `.svg`, `?size=` pixels (at least; whole pixels per module)."""
    link = live_link(request, code)
    size = _size(request.GET.get("size", ""))
    qr = segno.make(short_url(request, link.code, link.domain), error="m")
    modules = qr.symbol_size(scale=1, border=QUIET_ZONE)[0]
    # Whole pixels per module keep the code sharp; the image is the nearest size at or above.
    scale = max(1, -(-size // modules))
    buffer = io.BytesIO()
    if kind == "svg":
        qr.save(buffer, kind="svg", scale=scale, border=QUIET_ZONE, dark="#000", light="#fff", xmldecl=True)
    else:
        qr.save(buffer, kind="png", scale=scale, border=QUIET_ZONE)
    response = HttpResponse(buffer.getvalue(), content_type=CONTENT_TYPES[kind])
    response["Content-Disposition"] = f'attachment; filename="{link.code}-qr-{size}.{kind}"'
    return response
