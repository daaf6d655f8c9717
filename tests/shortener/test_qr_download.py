"""Downloading a short link's QR code as PNG or SVG in a chosen size (issue 23)."""

import io
import re
import struct

import pytest
import segno
from rest_framework import status

from shortener import messages
from shortener.views.qr import QR_MAX_SIZE, QR_MIN_SIZE
from tests.shortener.asserts import assert_shortener_error
from tests.shortener.factories import ShortLinkFactory
from tests.shortener.qr import PNG_SIGNATURE

pytestmark = pytest.mark.django_db


def png_size(png: bytes) -> tuple[int, int]:
    assert png.startswith(PNG_SIGNATURE)
    return struct.unpack(">II", png[16:24])  # the IHDR chunk's width and height


@pytest.fixture
def link(user):
    return ShortLinkFactory(code="qr1", owner=user)


@pytest.mark.parametrize("size", [128, 512, 1024])
def test_png_is_at_least_the_chosen_size_and_a_download(client, link, size):
    response = client.get("/s/qr/qr1.png", {"size": size})

    assert response.status_code == status.HTTP_200_OK
    assert response["Content-Type"] == "image/png"
    assert response["Content-Disposition"] == f'attachment; filename="qr1-qr-{size}.png"'
    width, height = png_size(response.content)
    assert width == height
    assert size <= width < size * 1.2


def test_svg_is_sized_and_a_download(client, link):
    response = client.get("/s/qr/qr1.svg", {"size": 256})

    body = response.content.decode()
    assert response["Content-Type"] == "image/svg+xml"
    assert body.startswith("<?xml")
    width = int(re.search(r'width="(\d+)"', body).group(1))
    assert 256 <= width < 256 * 1.2


def test_the_png_is_the_qr_code_of_the_short_url(client, link):
    png = client.get("/s/qr/qr1.png", {"size": 128}).content

    # No QR decoder here: compare with segno's own PNG of the short URL at the scale that size needs.
    qr = segno.make("http://testserver/s/qr1", error="m")
    scale = -(-128 // qr.symbol_size(scale=1, border=2)[0])
    expected = io.BytesIO()
    qr.save(expected, kind="png", scale=scale, border=2)
    assert png == expected.getvalue()


@pytest.mark.parametrize("size", ["1", "63", str(QR_MAX_SIZE + 1), "big", "-5", "1e3"])
def test_bad_size_gets_c_error_shape(client, link, size):
    response = client.get("/s/qr/qr1.png", {"size": size, "_format": "json"})

    assert_shortener_error(response, 400, messages.QR_SIZE_INVALID.format(low=QR_MIN_SIZE, high=QR_MAX_SIZE))


def test_unknown_code_is_404(client):
    assert_shortener_error(
        client.get("/s/qr/nope.svg", {"_format": "json"}),
        404,
        messages.LINK_UNKNOWN.format(short="http://testserver/s/nope"),
    )


@pytest.mark.parametrize("who", ["alice_client", "bob_client", "client"])
def test_anyone_who_can_see_the_statistics_can_download(request, link, who):
    assert request.getfixturevalue(who).get("/s/qr/qr1.svg").status_code == status.HTTP_200_OK


def test_the_statistics_page_offers_both_formats(client, link):
    html = client.get("/s/stats/qr1", HTTP_ACCEPT="text/html").content.decode()

    assert 'formaction="/s/qr/qr1.png"' in html and 'formaction="/s/qr/qr1.svg"' in html
    assert 'name="size"' in html
