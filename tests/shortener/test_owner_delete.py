"""Deleting one's own links through the confirmation page's POST form (issue 23); GET /d/<code> stays Lstu's."""

import pytest
from django.test import Client
from rest_framework import status

from shortener import messages
from shortener.models import ApiKey, ShortLink
from tests.shortener.asserts import assert_shortener_error, assert_shortener_error_page
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

SHORT = "http://testserver/s/mine"


@pytest.fixture
def link(user):
    return ShortLinkFactory(code="mine", owner=user, url="https://mine.example/")


def test_the_confirmation_page_asks_with_a_csrf_form_and_deletes_nothing(alice_client, link):
    response = alice_client.get("/s/delete/mine")

    html = response.content.decode()
    assert response.status_code == status.HTTP_200_OK
    assert '<form method="post" action="/s/d/mine">' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert "Delete this link" in html
    assert not ShortLink.objects.get(pk=link.pk).is_deleted


def test_the_owner_deletes_with_the_form(user, link):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    token = browser.get("/s/delete/mine").cookies["csrftoken"].value

    response = browser.post("/s/d/mine", {"csrfmiddlewaretoken": token})

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/s/stats"
    assert ShortLink.objects.get(pk=link.pk).is_deleted
    assert messages.LINK_DELETED.format(short=SHORT) in browser.get("/s/stats").content.decode()


def test_the_form_without_csrf_token_is_refused(user, link):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)

    assert_shortener_error_page(browser.post("/s/d/mine"), 403, messages.CSRF_FAILED)
    assert not ShortLink.objects.get(pk=link.pk).is_deleted


def test_the_owner_deletes_in_json(alice_client, link):
    response = alice_client.post("/s/d/mine", {"_format": "json"})

    assert response.json() == {"success": True, "url": "https://mine.example/", "short": SHORT}
    assert ShortLink.objects.get(pk=link.pk).is_deleted


def test_the_owner_still_cannot_delete_with_lstus_get(alice_client, link):
    assert_shortener_error(alice_client.get("/s/d/mine", {"_format": "json"}), 403, messages.NOT_ADMIN)
    assert not ShortLink.objects.get(pk=link.pk).is_deleted


def test_another_user_can_neither_see_the_page_nor_delete(bob_client, link):
    assert_shortener_error_page(bob_client.get("/s/delete/mine"), 403, messages.NOT_YOUR_LINK.format(short=SHORT))
    response = bob_client.post("/s/d/mine", {"_format": "json"})
    assert_shortener_error(response, 403, messages.NOT_YOUR_LINK.format(short=SHORT))
    assert not ShortLink.objects.get(pk=link.pk).is_deleted


def test_anonymous_is_sent_to_log_in(client, link):
    page = client.get("/s/delete/mine")
    assert page.status_code == status.HTTP_302_FOUND
    assert page["Location"] == "/s/login?next=/s/delete/mine"
    assert_shortener_error(client.post("/s/d/mine", {"_format": "json"}), 401, messages.LOGIN_REQUIRED)


def test_admin_mode_deletes_anyones_link_with_the_form(admin_mode_client, other_user):
    ShortLinkFactory(code="bobs", owner=other_user)

    assert admin_mode_client.get("/s/delete/bobs").status_code == status.HTTP_200_OK
    response = admin_mode_client.post("/s/d/bobs")

    assert response.status_code == status.HTTP_302_FOUND
    assert ShortLink.objects.get(code="bobs").is_deleted


def test_a_token_deletes_its_users_link_with_a_post(client, user, link):
    _key, token = ApiKey.issue(user=user, name="bot")

    response = client.post("/s/d/mine", HTTP_AUTHORIZATION=f"Bearer {token}")

    assert response.json()["success"] is True
    assert ShortLink.objects.get(pk=link.pk).is_deleted


def test_the_list_links_to_the_confirmation_page_not_to_a_deleting_get(alice_client, link):
    html = alice_client.get("/s/stats").content.decode()

    assert 'href="/s/delete/mine"' in html
    assert 'href="/s/d/mine"' not in html
