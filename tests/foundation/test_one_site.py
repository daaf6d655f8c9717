"""One site (issue 23, item 1): one header on every page, one sign-in for every browser page."""

import pytest
from django.test import Client
from rest_framework import status

from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
HEADER_LINKS = ('href="/reports/"', 'href="/pastes/"', 'href="/s/"', 'href="/api/docs/"')


def browser() -> Client:
    return Client(HTTP_ACCEPT=BROWSER_ACCEPT)


def signed_in_at_s_login(user) -> Client:
    """A browser that signed in through the shortener's login form, as a person would."""
    client = browser()
    response = client.post("/s/login", {"login": user.username, "password": "alice-password"})
    assert response.status_code == status.HTTP_302_FOUND
    return client


def pages(paste) -> list[str]:
    return ["/", "/reports/", "/reports/new", "/pastes/", "/pastes/new", f"/pastes/{paste.id}", "/s/", "/api/docs/"]


def test_every_page_has_the_site_header_and_names_who_is_signed_in(user):
    paste = PasteFactory(owner=user)
    client = signed_in_at_s_login(user)

    for path in pages(paste):
        response = client.get(path)
        body = response.content.decode()
        assert response.status_code == status.HTTP_200_OK, path
        assert body.count('<nav class="site-nav" aria-label="Site">') == 1, path
        for link in HEADER_LINKS:
            assert link in body, (path, link)
        assert "Signed in as <strong>alice</strong>" in body, path
        assert 'href="/s/logout"' in body, path


def test_a_stranger_sees_the_header_with_a_sign_in_link_back_to_the_page(user):
    paste = PasteFactory(owner=user)

    for path in ("/", f"/pastes/{paste.id}", "/s/", "/api/docs/", "/pastes/"):
        body = browser().get(path).content.decode()
        assert "Signed in as" not in body, path
        assert 'href="/accounts/login/?next=' in body, path
    body = browser().get(f"/pastes/{paste.id}?x=1").content.decode()
    assert f'href="/accounts/login/?next=/pastes/{paste.id}%3Fx%3D1"' in body


def test_the_landing_page_leads_to_each_interfaces_pages(client):
    body = client.get("/").content.decode()

    for link in ('href="/reports/new"', 'href="/pastes/new"', 'href="/s/"', 'href="/reports/"', 'href="/pastes/"'):
        assert link in body


def test_signing_in_at_s_login_opens_the_pages_of_all_three_interfaces(user):
    client = signed_in_at_s_login(user)

    new_paste = client.get("/pastes/new")
    assert new_paste.status_code == status.HTTP_200_OK
    assert b"<textarea" in new_paste.content
    assert client.get("/reports/new").status_code == status.HTTP_200_OK
    assert client.get("/reports/").status_code == status.HTTP_200_OK
    assert client.get("/s/stats").status_code == status.HTTP_200_OK


def test_signing_out_closes_them_again(user):
    client = signed_in_at_s_login(user)
    client.get("/s/logout")

    response = client.get("/pastes/new")

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/accounts/login/?next=/pastes/new"


def test_signing_in_from_a_page_comes_back_to_it(user):
    client = browser()

    response = client.post("/s/login?next=/pastes/new", {"login": "alice", "password": "alice-password"})

    assert response["Location"] == "/pastes/new"
    assert client.get("/pastes/new").status_code == status.HTTP_200_OK


def test_the_apis_keep_their_keys_and_ignore_the_session(user):
    client = signed_in_at_s_login(user)

    response = client.post("/pastes/create", {"name": "ab", "content": "x"}, content_type="application/json")

    assert response.status_code == status.HTTP_401_UNAUTHORIZED
    assert response.json() == {"code": 401, "message": "An API key is required: send it as the Authorization header."}


@pytest.mark.parametrize("accept", [None, "*/*", "application/json", "application/json, text/html;q=0.5"])
def test_pastes_index_stays_json_for_api_clients(client, accept):
    headers = {"HTTP_ACCEPT": accept} if accept else {}

    response = client.get("/pastes/", **headers)

    assert response.status_code == status.HTTP_200_OK
    assert response["Content-Type"] == "application/json"
    assert response.json()["docs"].endswith("/api/docs/")
    assert "Accept" in response["Vary"]


def test_pastes_index_is_a_page_for_a_browser(client):
    response = client.get("/pastes/", HTTP_ACCEPT=BROWSER_ACCEPT)

    assert response.status_code == status.HTTP_200_OK
    assert response["Content-Type"].startswith("text/html")
    assert "Accept" in response["Vary"]
    assert b'href="/accounts/login/?next=/pastes/"' in response.content


def test_on_the_shortener_host_the_header_links_only_what_is_served(client, settings):
    settings.SHORTENER_HOST = "sho.rt"
    settings.ALLOWED_HOSTS = ["testserver", "sho.rt"]

    response = client.get("/", headers={"host": "sho.rt", "accept": BROWSER_ACCEPT})

    body = response.content.decode()
    assert response.status_code == status.HTTP_200_OK
    assert '<nav class="site-nav" aria-label="Site">' in body
    assert ">Short links</a>" in body
    assert ">Pastes</a>" not in body and ">Reports</a>" not in body and ">API docs</a>" not in body
    # Only the shortener is served there, so its own sign-in form stands in for the account area's.
    assert 'href="/login?next=/"' in body


def test_the_sign_in_page_sends_a_signed_in_reader_straight_back(user):
    client = signed_in_at_s_login(user)

    assert client.get("/s/login?next=/pastes/new")["Location"] == "/pastes/new"
    assert client.get("/s/login?next=https://evil.example/")["Location"] == "/s/"
