import pytest
from rest_framework import status

pytestmark = pytest.mark.django_db


def test_landing_page_links_to_every_interface(client):
    response = client.get("/")

    assert response.status_code == status.HTTP_200_OK
    assert b"/api/v1/reports" in response.content
    assert b'href="/s/"' in response.content
    assert b"/pastes/create" in response.content
    assert b'href="/api/docs/"' in response.content
    assert b'href="/admin/"' in response.content


def test_admin_login_page_renders_with_the_service_name(client, settings):
    response = client.get("/admin/login/")

    assert response.status_code == status.HTTP_200_OK
    assert f"{settings.SERVICE_NAME} administration".encode() in response.content


@pytest.mark.browser
def test_landing_page_in_a_browser(live_server, page):
    page.goto(live_server.url + "/")

    assert page.locator("h1").inner_text() == "Webtools"
    assert page.locator("link[rel=stylesheet]").count() == 1
    page.get_by_role("link", name="Open the URL shortener").wait_for()
