import pytest
from django.test import Client

ADMIN_PASSWORD = "toto"
JSON = {"_format": "json"}


@pytest.fixture
def admin_password(settings) -> str:
    settings.SHORTENER_ADMINPWD = ADMIN_PASSWORD
    return ADMIN_PASSWORD


@pytest.fixture
def admin_mode_client(alice_client, admin_password) -> Client:
    """Alice's session, in admin mode."""
    response = alice_client.post("/s/stats", {"adminpwd": admin_password, "_format": "json"})
    assert response.json()["success"] is True
    return alice_client
