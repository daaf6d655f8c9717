"""HTML pages: security headers, CSP-friendly markup, the main page, and the Django admin."""

import re

import pytest
from rest_framework import status

from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

PAGES = ["/s/", "/s/login", "/s/logged-out", "/s/stats", "/s/stats/abc", "/s/nothere"]


@pytest.fixture
def pages(alice_client, user):
    ShortLinkFactory(code="abc", owner=user)
    return {path: alice_client.get(path) for path in PAGES}


@pytest.mark.parametrize("path", PAGES)
def test_html_pages_carry_the_security_headers(pages, path):
    response = pages[path]

    assert response["Content-Security-Policy"].startswith("default-src 'self'")
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"


@pytest.mark.parametrize("path", PAGES)
def test_html_pages_have_no_inline_script_or_style(pages, path):
    page = pages[path].content.decode()

    assert not re.search(r"<script(?![^>]*\bsrc=)", page)
    assert "<style" not in page
    assert " style=" not in page
    assert "http://" not in page.replace("http://testserver", "")


def test_main_page_shows_the_form_to_a_logged_in_user(alice_client):
    page = alice_client.get("/s/").content.decode()

    assert 'name="shorturl"' in page
    assert 'name="shorturl-custom"' in page
    assert 'name="csrfmiddlewaretoken"' in page


def test_main_page_asks_anonymous_visitors_to_log_in(client):
    page = client.get("/s/").content.decode()

    assert 'name="shorturl"' not in page
    assert 'href="/s/login"' in page


def test_main_page_json_tells_the_session_state(alice_client):
    response = alice_client.get("/s/", HTTP_ACCEPT="application/json")

    assert response.json() == {"success": True, "user": "alice", "admin": False}


def test_browser_accept_header_gets_html(client):
    response = client.get("/s/", HTTP_ACCEPT="text/html,application/xhtml+xml,*/*;q=0.8")

    assert response["Content-Type"].startswith("text/html")


def test_django_admin_lists_and_searches_short_links(admin_client):
    ShortLinkFactory(code="findme", url="https://needle.example/")
    ShortLinkFactory(code="other", url="https://hay.example/")

    response = admin_client.get("/admin/shortener/shortlink/", {"q": "needle"})

    page = response.content.decode()
    assert response.status_code == status.HTTP_200_OK
    assert "findme" in page
    assert "hay.example" not in page


def test_django_admin_shows_the_counter_read_only(admin_client):
    link = ShortLinkFactory(counter=4)

    page = admin_client.get(f"/admin/shortener/shortlink/{link.pk}/change/").content.decode()

    assert 'name="counter"' not in page
    assert "4" in page
