"""The account area's home at /accounts/ and "Signed in as …" in every header (issue 44, item 3): every
interface's pages, through their own layouts, lead a signed-in person there and offer Sign out; an
anonymous reader gets "Sign in", which comes back to the page."""

import pytest
from rest_framework import status

from tests.reports.factories import ReportFactory

pytestmark = pytest.mark.django_db

HOME = "/accounts/"
BROWSER_ACCEPT = "text/html,application/xhtml+xml"
ACCOUNT_PAGES = [
    "/accounts/profile/",
    "/accounts/keys/",
    "/accounts/password/change/",
    "/accounts/2fa/",
    "/accounts/sessions/",
    "/accounts/email/",
    "/accounts/export/",
    "/accounts/delete/",
]


def test_the_owner_s_home_links_every_page_of_the_account_area(client, user):
    client.force_login(user)

    response = client.get(HOME)

    body = response.content.decode()
    assert response.status_code == status.HTTP_200_OK
    assert '<nav class="site-nav" aria-label="Site">' in body
    assert "Signed in as <strong>alice</strong>." in body
    for path in ACCOUNT_PAGES:
        assert f'href="{path}"' in body, path


def test_another_user_s_home_is_their_own(client, user, other_user):
    client.force_login(other_user)

    body = client.get(HOME).content.decode()

    assert "Signed in as <strong>bob</strong>." in body
    assert "alice" not in body


def test_anonymous_is_sent_to_sign_in_and_back(client):
    response = client.get(HOME)

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == f"/accounts/login/?next={HOME}"


def test_the_home_only_answers_reads(client, user):
    client.force_login(user)

    assert client.post(HOME).status_code == status.HTTP_405_METHOD_NOT_ALLOWED


# --- the header -------------------------------------------------------------------


def header_of(body: str) -> str:
    return body[body.index('<header class="site-header">') : body.index("</header>")]


def pages(user) -> list[str]:
    """One page of each interface and layout: the landing, reports, pastes, short links, the API docs,
    allauth's pages and the account area's own."""
    report = ReportFactory(owner=user)
    return ["/", f"/reports/{report.pk}", "/pastes/", "/s/", "/api/docs/", "/accounts/password/reset/"]


def test_every_layout_s_header_says_who_is_signed_in_and_links_the_account_area(client, user):
    client.force_login(user)

    for path in [*pages(user), "/reports/", "/accounts/keys/", "/accounts/sessions/", HOME]:
        response = client.get(path, HTTP_ACCEPT=BROWSER_ACCEPT)
        assert response.status_code == status.HTTP_200_OK, path
        header = header_of(response.content.decode())
        assert 'href="/accounts/" data-testid="signed-in-as">Signed in as <strong>alice</strong></a>' in header, path
        assert ">Sign out</a>" in header, path
        assert "Sign in</a>" not in header, path


def test_every_layout_s_header_offers_an_anonymous_reader_sign_in_back_to_the_page(client, user):
    for path in pages(user):
        response = client.get(path, HTTP_ACCEPT=BROWSER_ACCEPT)
        assert response.status_code == status.HTTP_200_OK, path
        header = header_of(response.content.decode())
        assert f'<a href="/accounts/login/?next={path}">Sign in</a>' in header, path
        assert "Signed in as" not in header, path


def test_the_header_follows_the_person_signed_in_through_lstu_s_login(client, user):
    client.post("/s/login", {"login": "alice", "password": "alice-password", "_format": "json"})

    header = header_of(client.get("/s/", HTTP_ACCEPT=BROWSER_ACCEPT).content.decode())

    assert 'href="/accounts/" data-testid="signed-in-as">Signed in as <strong>alice</strong>' in header
