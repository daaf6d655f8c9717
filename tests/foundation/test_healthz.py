from unittest import mock

import pytest
from django.db import OperationalError
from rest_framework import status

pytestmark = pytest.mark.django_db


def test_healthz_is_ok_when_the_database_answers(client):
    response = client.get("/healthz")

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"status": "ok"}


def test_healthz_is_503_when_the_database_is_down(client):
    with mock.patch("django.db.backends.utils.CursorWrapper.execute", side_effect=OperationalError("down")):
        response = client.get("/healthz")

    assert response.status_code == status.HTTP_503_SERVICE_UNAVAILABLE
    assert response.json() == {"status": "unavailable", "unavailable": ["database"]}
    assert response["Retry-After"] == "5"
