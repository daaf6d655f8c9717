"""GET /<code>: following a short link, and resolving it in JSON."""

import pytest
from django.test import Client
from rest_framework import status

from shortener import messages
from shortener.fastpath import flush_visits
from shortener.models import ShortLink
from shortener.services.links import link_delete
from tests.shortener.asserts import assert_shortener_error, assert_shortener_error_page
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db


def test_redirect_sends_the_visitor_to_the_target_with_302(client):
    ShortLinkFactory(code="abc", url="https://example.com/target")

    response = client.get("/s/abc")

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "https://example.com/target"


def test_redirect_is_permanent_when_configured(client, settings):
    settings.SHORTENER_REDIRECT_PERMANENT = True
    ShortLinkFactory(code="abc", url="https://example.com/target")

    response = client.get("/s/abc")

    assert response.status_code == status.HTTP_301_MOVED_PERMANENTLY
    assert response["Location"] == "https://example.com/target"


def test_redirect_json_gives_exactly_success_and_url(client):
    ShortLinkFactory(code="abc", url="https://lstu.fr")

    response = client.get("/s/abc", {"_format": "json"})

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "url": "https://lstu.fr"}


def test_unknown_code_json_is_404_with_message(client, db):
    response = client.get("/s/nothere", {"_format": "json"})

    assert_shortener_error(response, 404, "The shortened URL http://testserver/s/nothere doesn't exist.")


def test_unknown_code_html_is_a_404_page_with_message(client, db):
    response = client.get("/s/nothere")

    assert_shortener_error_page(response, 404, "The shortened URL http://testserver/s/nothere doesn't exist.")
    assert 'href="/s/"' in response.content.decode()


def test_deleted_code_is_404_with_its_own_message(client):
    ShortLinkFactory(code="gone", deleted_at="2026-01-01T00:00:00Z")

    response = client.get("/s/gone", {"_format": "json"})

    assert_shortener_error(response, 404, "The shortened URL http://testserver/s/gone no longer exists.")


def test_deleting_a_cached_link_stops_its_redirect(client):
    link = ShortLinkFactory(code="abc")
    assert client.get("/s/abc").status_code == status.HTTP_302_FOUND

    link_delete(link=link)

    assert_shortener_error_page(client.get("/s/abc"), 404, messages.LINK_GONE.format(short="http://testserver/s/abc"))


def test_changing_the_target_in_the_admin_updates_a_cached_redirect(client):
    link = ShortLinkFactory(code="abc", url="https://old.example/")
    client.get("/s/abc")

    link.url = "https://new.example/"
    link.save()

    assert client.get("/s/abc")["Location"] == "https://new.example/"


def test_removing_a_cached_link_from_the_database_stops_its_redirect(client):
    link = ShortLinkFactory(code="abc")
    client.get("/s/abc")

    link.delete()

    assert_shortener_error_page(
        client.get("/s/abc"), 404, messages.LINK_UNKNOWN.format(short="http://testserver/s/abc")
    )


def test_codes_are_case_sensitive(client):
    link = ShortLinkFactory(code="AbC")

    assert_shortener_error_page(
        client.get("/s/abc"), 404, messages.LINK_UNKNOWN.format(short="http://testserver/s/abc")
    )
    assert client.get("/s/AbC")["Location"] == link.url


def test_redirect_needs_no_login(client, user):
    link = ShortLinkFactory(code="abc", owner=user)

    response = client.get("/s/abc")

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == link.url


def test_redirect_refuses_post(client):
    ShortLinkFactory(code="abc")

    response = client.post("/s/abc", {"_format": "json"})

    assert_shortener_error(response, 405, messages.METHOD_NOT_ALLOWED)


def test_path_outside_the_code_alphabet_is_404_in_json(client, db):
    response = client.get("/s/robots.txt", {"_format": "json"})

    assert_shortener_error(response, 404, "Not found.")


def test_redirect_works_at_the_root_of_the_shortener_host(settings):
    settings.SHORTENER_HOST = "sho.rt"
    settings.ALLOWED_HOSTS = ["testserver", "sho.rt"]
    ShortLinkFactory(code="abc", url="https://example.com/target")

    response = Client(HTTP_HOST="sho.rt").get("/abc")

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "https://example.com/target"


def test_unknown_code_message_names_the_shortener_host_url(settings, db):
    settings.SHORTENER_HOST = "sho.rt"
    settings.ALLOWED_HOSTS = ["testserver", "sho.rt"]

    response = Client(HTTP_HOST="sho.rt").get("/nothere", {"_format": "json"})

    assert response.json()["msg"] == "The shortened URL http://sho.rt/nothere doesn't exist."


def test_redirect_costs_no_query_once_cached_for_a_repeat_visitor(client, django_assert_num_queries):
    ShortLinkFactory(code="abc")
    client.get("/s/abc")

    with django_assert_num_queries(0):
        response = client.get("/s/abc")

    assert response.status_code == status.HTTP_302_FOUND
    flush_visits()
    assert ShortLink.objects.get().counter == 1


def test_accept_json_resolves_without_redirecting(client):
    ShortLinkFactory(code="abc", url="https://lstu.fr")

    response = client.get("/s/abc", HTTP_ACCEPT="application/json")

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "url": "https://lstu.fr"}
    flush_visits()
    assert ShortLink.objects.get().counter == 0


def test_format_other_than_json_wins_over_accept(client):
    ShortLinkFactory(code="abc", url="https://lstu.fr")

    response = client.get("/s/abc", {"_format": "html"}, HTTP_ACCEPT="application/json")

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "https://lstu.fr"
