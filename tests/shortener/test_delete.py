"""GET /d/<code>: deleting a link in admin mode."""

import pytest
from rest_framework import status

from shortener import messages
from shortener.models import ShortLink
from tests.shortener.asserts import assert_shortener_error, assert_shortener_error_page
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def link(other_user):
    return ShortLinkFactory(code="abc", owner=other_user, url="https://lstu.fr")


def test_admin_deletes_a_link_in_json(admin_mode_client, link):
    response = admin_mode_client.get("/s/d/abc", {"_format": "json"})

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "url": "https://lstu.fr", "short": "http://testserver/s/abc"}
    link.refresh_from_db()
    assert link.is_deleted


def test_deleted_link_no_longer_redirects(admin_mode_client, link, client):
    client.get("/s/abc")  # cached

    admin_mode_client.get("/s/d/abc", {"_format": "json"})

    assert_shortener_error_page(client.get("/s/abc"), 404, messages.LINK_GONE.format(short="http://testserver/s/abc"))


def test_admin_delete_html_redirects_to_stats_with_a_message(admin_mode_client, link):
    response = admin_mode_client.get("/s/d/abc")

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/s/stats"
    page = admin_mode_client.get("/s/stats").content.decode()
    assert "The shortened URL http://testserver/s/abc has been deleted." in page
    assert ShortLink.objects.get().is_deleted


def test_delete_of_unknown_code_is_404(admin_mode_client, db):
    response = admin_mode_client.get("/s/d/nothere", {"_format": "json"})

    assert_shortener_error(response, 404, "The shortened URL http://testserver/s/nothere doesn't exist.")


def test_delete_of_deleted_code_is_404(admin_mode_client, link):
    admin_mode_client.get("/s/d/abc", {"_format": "json"})

    response = admin_mode_client.get("/s/d/abc", {"_format": "json"})

    assert_shortener_error(response, 404, "The shortened URL http://testserver/s/abc no longer exists.")


def test_delete_of_unknown_code_html_redirects_with_the_message(admin_mode_client, db):
    response = admin_mode_client.get("/s/d/nothere")

    assert response["Location"] == "/s/stats"
    assert "doesn&#x27;t exist." in admin_mode_client.get("/s/stats").content.decode()


def test_owner_who_is_not_admin_cannot_delete(client, link, other_user, admin_password):
    client.force_login(other_user)

    response = client.get("/s/d/abc", {"_format": "json"})

    assert_shortener_error(response, 403, messages.NOT_ADMIN)
    assert not ShortLink.objects.get().is_deleted


def test_other_user_who_is_not_admin_cannot_delete(alice_client, link):
    response = alice_client.get("/s/d/abc", {"_format": "json"})

    assert_shortener_error(response, 403, messages.NOT_ADMIN)
    assert not ShortLink.objects.get().is_deleted


def test_not_admin_html_redirects_to_stats_with_the_message(alice_client, link):
    response = alice_client.get("/s/d/abc")

    assert response["Location"] == "/s/stats"
    assert "You&#x27;re not authenticated as the admin" in alice_client.get("/s/stats").content.decode()
    assert not ShortLink.objects.get().is_deleted


def test_anonymous_cannot_delete(client, link):
    response = client.get("/s/d/abc", {"_format": "json"})

    assert_shortener_error(response, 401, messages.LOGIN_REQUIRED)
    assert not ShortLink.objects.get().is_deleted


def test_delete_started_by_another_site_is_refused(admin_mode_client, link):
    response = admin_mode_client.get("/s/d/abc", {"_format": "json"}, HTTP_SEC_FETCH_SITE="cross-site")

    assert_shortener_error(response, 403, messages.CROSS_SITE)
    assert not ShortLink.objects.get().is_deleted


def test_delete_from_the_own_stats_page_is_allowed(admin_mode_client, link):
    response = admin_mode_client.get("/s/d/abc", HTTP_SEC_FETCH_SITE="same-origin")

    assert response.status_code == status.HTTP_302_FOUND
    assert ShortLink.objects.get().is_deleted


def test_admin_mode_ends_with_logout(admin_mode_client, link):
    admin_mode_client.get("/s/logout")
    admin_mode_client.force_login(link.owner)

    response = admin_mode_client.get("/s/d/abc", {"_format": "json"})

    assert_shortener_error(response, 403, messages.NOT_ADMIN)


def test_head_request_does_not_delete(admin_mode_client, link):
    response = admin_mode_client.head("/s/d/abc")

    assert response.status_code == status.HTTP_405_METHOD_NOT_ALLOWED
    assert not ShortLink.objects.get().is_deleted
