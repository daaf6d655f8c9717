"""HEAD wherever GET is allowed, and a favicon (issue 14, item 2)."""

import pytest
from rest_framework import status

from tests.reports.factories import ReportFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/", "/healthz", "/s/", "/s/login", "/api/docs/", "/pastes/"])
def test_head_answers_like_get_without_a_body(client, path):
    get = client.get(path)

    head = client.head(path)

    assert get.status_code == status.HTTP_200_OK
    assert head.status_code == status.HTTP_200_OK
    assert head.content == b""
    assert head["Content-Type"] == get["Content-Type"]


def test_head_of_a_report_page_answers_200(client):
    report = ReportFactory()

    response = client.head(f"/reports/{report.pk}")

    assert response.status_code == status.HTTP_200_OK
    assert response.content == b""


def test_head_of_healthz_is_503_when_the_database_is_down(client):
    from unittest import mock

    from django.db import OperationalError

    with mock.patch("django.db.backends.utils.CursorWrapper.execute", side_effect=OperationalError("down")):
        response = client.head("/healthz")

    assert response.status_code == status.HTTP_503_SERVICE_UNAVAILABLE
    assert response["Retry-After"] == "5"
    assert response.content == b""


def test_post_to_the_landing_page_is_still_refused(client):
    response = client.post("/")

    assert response.status_code == status.HTTP_405_METHOD_NOT_ALLOWED
    assert response["Allow"] == "GET, HEAD"


def test_favicon_is_served_at_the_root_as_an_icon(live_server):
    import httpx

    response = httpx.get(f"{live_server.url}/favicon.ico")

    assert response.status_code == status.HTTP_200_OK
    assert response.headers["Content-Type"] in {"image/x-icon", "image/vnd.microsoft.icon"}
    assert response.content[:4] == b"\x00\x00\x01\x00"  # the ICO header
