"""Django's own failures (config.views) in each interface's shape, including the 503 for an unavailable dependency."""

import json

import pytest
from django.core.exceptions import RequestDataTooBig
from django.test import RequestFactory
from rest_framework import status

from config import views
from tests.pastes.asserts import assert_pastes_error
from tests.shortener.asserts import assert_shortener_error_page

pytestmark = [pytest.mark.django_db, pytest.mark.log_without_tracebacks]

factory = RequestFactory()


def unavailable(request, **options):
    """The 503 config.views answers for a request when a dependency is down."""
    return views.interface_errors(request).unavailable(request, **options)


@pytest.mark.parametrize(
    ("path", "headers", "body"),
    [
        ("/api/v1/reports", {}, {"message": "Service Unavailable.", "status": 503}),
        ("/pastes/api/paste", {}, {"code": 503, "message": "The service is temporarily unavailable."}),
        (
            "/s/abc",
            {"Accept": "application/json"},
            {"success": False, "msg": "The service is temporarily unavailable. Please retry."},
        ),
    ],
)
def test_service_unavailable_answers_in_each_interface_shape_with_retry_after(path, headers, body):
    response = unavailable(factory.get(path, headers=headers), retry_after=30)

    assert response.status_code == status.HTTP_503_SERVICE_UNAVAILABLE
    assert response["Retry-After"] == "30"
    assert json.loads(response.content) == body


def test_service_unavailable_without_retry_after_sends_none():
    response = unavailable(factory.get("/api/v1/reports"))

    assert response.status_code == status.HTTP_503_SERVICE_UNAVAILABLE
    assert "Retry-After" not in response


def test_service_unavailable_is_an_html_page_for_browsers():
    response = unavailable(factory.get("/s/abc"), retry_after=5)

    assert_shortener_error_page(response, 503, "The service is temporarily unavailable. Please retry.")
    assert response["Retry-After"] == "5"


def test_oversized_body_outside_a_view_is_413_for_pastes():
    response = views.bad_request(factory.post("/pastes/api/paste"), RequestDataTooBig())

    assert_pastes_error(response, 413, "The request body is too large.")


def test_oversized_body_outside_a_view_stays_a_400_for_the_reports_api():
    response = views.bad_request(factory.post("/api/v1/reports"), RequestDataTooBig())

    assert response.status_code == status.HTTP_400_BAD_REQUEST
    assert json.loads(response.content) == {"message": "Bad request.", "status": 400}
