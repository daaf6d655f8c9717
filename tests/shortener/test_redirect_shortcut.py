"""The redirect answered early by RedirectShortcutMiddleware, and what it leaves to the normal views."""

import pytest
from django.test import Client
from rest_framework import status

from shortener.services.visits import visits_flush

from .factories import ShortLinkFactory

pytestmark = pytest.mark.django_db


def test_redirect_sets_no_cookie_and_keeps_the_security_headers(client):
    ShortLinkFactory(code="abc", url="https://example.com/target")

    response = client.get("/s/abc")

    assert response.status_code == status.HTTP_302_FOUND
    assert response.cookies == {}
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"


def test_redirect_with_a_query_string_still_redirects_and_counts(client):
    link = ShortLinkFactory(code="abc", url="https://example.com/target")

    response = client.get("/s/abc", {"utm_source": "mail"}, HTTP_USER_AGENT="Firefox")

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "https://example.com/target"
    visits_flush()
    link.refresh_from_db()
    assert link.counter == 1


def test_accept_preferring_any_application_type_gets_json(client):
    ShortLinkFactory(code="abc", url="https://lstu.fr")

    response = client.get("/s/abc", HTTP_ACCEPT="application/*")

    assert response.json() == {"success": True, "url": "https://lstu.fr"}


def test_browser_accept_header_gets_the_redirect(client):
    ShortLinkFactory(code="abc", url="https://lstu.fr")

    response = client.get("/s/abc", HTTP_ACCEPT="text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")

    assert response.status_code == status.HTTP_302_FOUND


def test_code_spelled_like_a_page_still_reaches_the_page(client):
    # Such codes cannot be created, but one could have been entered in the admin.
    ShortLinkFactory(code="stats", url="https://example.com/target")

    response = client.get("/s/stats")

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"].startswith("/s/login")


def test_redirect_for_a_host_not_allowed_is_400(client):
    ShortLinkFactory(code="abc")

    response = client.get("/s/abc", HTTP_HOST="evil.example")

    assert response.status_code == status.HTTP_400_BAD_REQUEST


def test_prefixed_path_on_the_shortener_host_is_not_a_code(settings):
    settings.SHORTENER_HOST = "sho.rt"
    settings.ALLOWED_HOSTS = ["testserver", "sho.rt"]
    ShortLinkFactory(code="abc")

    response = Client(HTTP_HOST="sho.rt").get("/s/abc")

    assert response.status_code == status.HTTP_404_NOT_FOUND
