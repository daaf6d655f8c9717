import importlib

import pytest
from django.urls import clear_url_caches
from rest_framework import status

import config.urls
from tests.pastes.asserts import assert_pastes_error
from tests.shortener.asserts import assert_shortener_error_page

pytestmark = pytest.mark.django_db


@pytest.fixture
def reload_urls(settings):
    """Rebuild the URLconf after the test changed the prefix settings, and restore it afterwards."""
    original = (settings.PASTES_PREFIX, settings.SHORTENER_PREFIX)

    def reload() -> None:
        importlib.reload(config.urls)
        clear_url_caches()

    yield reload
    settings.PASTES_PREFIX, settings.SHORTENER_PREFIX = original
    reload()


def test_unknown_api_path_answers_in_the_reports_error_shape(client):
    response = client.get("/api/v1/nothing-here")

    assert response.status_code == status.HTTP_404_NOT_FOUND
    assert response.json() == {"message": "Resource not found.", "status": 404}


def test_unknown_pastes_path_answers_in_the_pastes_error_shape(client):
    response = client.get("/pastes/nothing/here")

    assert_pastes_error(response, 404, "Not found.")


def test_unknown_page_elsewhere_is_an_html_page(client):
    response = client.get("/nothing/here/")

    assert response.status_code == status.HTTP_404_NOT_FOUND
    assert response["Content-Type"].startswith("text/html")
    assert b"Not found." in response.content


def test_prefixes_come_from_the_settings(client, settings, reload_urls):
    settings.PASTES_PREFIX = "p"
    settings.SHORTENER_PREFIX = "go"
    reload_urls()

    landing = client.get("/")
    assert b"/p/create" in landing.content
    assert b'href="/go/"' in landing.content
    assert_pastes_error(client.get("/p/anything"), 404, "Not found.")
    assert client.get("/pastes/anything")["Content-Type"].startswith("text/html")


def test_shortener_host_hides_the_rest_of_the_site(client, settings):
    settings.SHORTENER_HOST = "sho.rt"
    settings.ALLOWED_HOSTS = ["testserver", "sho.rt"]

    on_short_host = {"host": "sho.rt"}

    # On that host every path is a short code: /healthz could be one, /admin/login/ cannot; /api/
    # paths keep the reports API's error shape there too.
    assert_shortener_error_page(client.get("/admin/login/", headers=on_short_host), 404, "Not found.")
    assert_shortener_error_page(
        client.get("/healthz", headers=on_short_host), 404, "The shortened URL http://sho.rt/healthz doesn't exist."
    )
    api_docs = client.get("/api/docs/", headers=on_short_host)
    assert api_docs.status_code == status.HTTP_404_NOT_FOUND
    assert api_docs.json() == {"message": "Resource not found.", "status": 404}
    assert client.get("/admin/login/").status_code == status.HTTP_200_OK
    assert b'name="password"' in client.get("/admin/login/").content


def test_api_docs_page_and_schema_are_served(client):
    docs = client.get("/api/docs/")
    schema = client.get("/api/schema/", headers={"accept": "application/json"})

    assert docs.status_code == status.HTTP_200_OK
    assert b"swagger" in docs.content.lower()
    assert schema.status_code == status.HTTP_200_OK
    assert schema.json()["openapi"].startswith("3.")
