"""The admin's sign-in is limited as /s/login is, in one count per address (issue 49).

Both take the same accounts' passwords; the admin's form took any number of guesses at a
staff password, each one hashed.
"""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db

LIMIT = 3


@pytest.fixture(autouse=True)
def staff(settings):
    settings.SHORTENER_LOGIN_RATE_LIMIT = LIMIT
    return get_user_model().objects.create_user(username="root", password="staff-password", is_staff=True)


def sign_in(client: Client, password: str):
    return client.post("/admin/login/?next=/admin/", {"username": "root", "password": password})


def test_past_the_limit_even_the_right_password_is_refused_with_429():
    client = Client()
    wrong = [sign_in(client, "guess").status_code for _ in range(LIMIT)]

    refused = sign_in(client, "staff-password")

    assert wrong == [200] * LIMIT  # the form again, with its error
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 600
    assert "Too many login attempts" in refused.content.decode()
    assert client.get("/admin/")["Location"].startswith("/admin/login/")  # not signed in


def test_the_right_password_within_the_limit_signs_in():
    client = Client()

    response = sign_in(client, "staff-password")

    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200


def test_tries_on_the_shortener_and_the_admin_count_together():
    for _ in range(LIMIT):
        Client().post("/s/login", {"login": "root", "password": "guess", "_format": "json"})

    assert sign_in(Client(), "staff-password").status_code == 429
