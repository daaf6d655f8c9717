"""Lstu's wire format in every variant its clients send: `_format`, `format`, `.json`, Accept."""

import time

import pytest
from django.test import Client
from rest_framework import status

from shortener import messages
from shortener.models import CODE_ALPHABET, ShortLink
from shortener.services.links import link_delete
from tests.shortener.asserts import assert_shortener_error
from tests.shortener.breakdowns import empty_breakdowns
from tests.shortener.factories import ShortLinkFactory
from tests.shortener.qr import assert_png_qr_of

pytestmark = pytest.mark.django_db

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

# (path suffix, query, form extra, headers) for each way of asking for JSON.
JSON_VARIANTS = {
    "_format query": ("", {"_format": "json"}, {}, {}),
    "format query": ("", {"format": "json"}, {}, {}),
    "format form": ("", {}, {"format": "json"}, {}),
    "_format form": ("", {}, {"_format": "json"}, {}),
    ".json suffix": (".json", {}, {}, {}),
    "Accept header": ("", {}, {}, {"HTTP_ACCEPT": "application/json"}),
}


def _post(client: Client, path: str, variant: str, data: dict):
    suffix, query, form, headers = JSON_VARIANTS[variant]
    query_string = "&".join(f"{key}={value}" for key, value in query.items())
    url = f"{path}{suffix}" + (f"?{query_string}" if query_string else "")
    return client.post(url, {**data, **form}, **headers)


@pytest.mark.parametrize("variant", JSON_VARIANTS)
def test_create_answers_json_in_every_variant(alice_client, variant):
    response = _post(alice_client, "/s/a", variant, {"lsturl": "https://lstu.fr"})

    assert response.status_code == status.HTTP_200_OK
    assert response["Content-Type"] == "application/json"
    body = response.json()
    link = ShortLink.objects.get()
    assert body["short"] == f"http://testserver/s/{link.code}"
    assert_png_qr_of(body["qrcode"], body["short"])


@pytest.mark.parametrize("variant", ["format query", "format form", ".json suffix"])
def test_create_failure_answers_json_in_every_variant(alice_client, variant):
    response = _post(alice_client, "/s/a", variant, {"lsturl": "truc"})

    assert response.json() == {"success": False, "msg": "truc is not a valid URL."}
    assert not ShortLink.objects.exists()


@pytest.mark.parametrize("variant", ["format query", ".json suffix", "Accept header"])
def test_resolve_answers_json_in_every_variant(client, variant):
    ShortLinkFactory(code="abc", url="https://lstu.fr")
    suffix, query, _form, headers = JSON_VARIANTS[variant]

    response = client.get(f"/s/abc{suffix}", query, **headers)

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "url": "https://lstu.fr"}


def test_unknown_code_with_json_suffix_is_a_json_404(client):
    response = client.get("/s/nothere.json")

    assert_shortener_error(response, 404, "The shortened URL http://testserver/s/nothere doesn't exist.")


def test_format_html_overrides_an_accept_asking_for_json(client):
    ShortLinkFactory(code="abc", url="https://lstu.fr")

    response = client.get("/s/abc", {"format": "html"}, HTTP_ACCEPT="application/json")

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "https://lstu.fr"


@pytest.mark.parametrize("variant", ["format query", ".json suffix", "Accept header"])
def test_stats_list_answers_json_in_every_variant(alice_client, user, variant):
    ShortLinkFactory(code="mine", owner=user, url="https://lstu.fr", counter=2)
    suffix, query, _form, headers = JSON_VARIANTS[variant]

    response = alice_client.get(f"/s/stats{suffix}", query, **headers)

    [item] = response.json()
    assert item["short"] == "http://testserver/s/mine"
    assert item["counter"] == 2
    assert_png_qr_of(item["qrcode"], item["short"])


@pytest.mark.parametrize("accept", [None, "*/*", "application/json", "application/json, text/html;q=0.5"])
def test_stats_detail_answers_json_unless_html_is_preferred(client, accept):
    link = ShortLinkFactory(code="abc", url="https://lstu.fr", counter=3)
    headers = {"HTTP_ACCEPT": accept} if accept else {}

    response = client.get("/s/stats/abc", **headers)

    assert response.status_code == status.HTTP_200_OK
    body = response.json()
    assert body == {
        "success": True,
        "url": "https://lstu.fr",
        "short": "http://testserver/s/abc",
        "counter": 3,
        "created_at": int(link.created_at.timestamp()),
        "timestamp": body["timestamp"],
        **empty_breakdowns(),
    }
    assert abs(body["timestamp"] - time.time()) < 5


def test_stats_detail_gives_a_browser_the_page(client):
    ShortLinkFactory(code="abc", url="https://lstu.fr", counter=3)

    response = client.get("/s/stats/abc", HTTP_ACCEPT=BROWSER_ACCEPT)

    assert response["Content-Type"].startswith("text/html")
    assert "<dd>3</dd>" in response.content.decode()


def test_stats_detail_with_json_suffix_ignores_a_browser_accept(client):
    ShortLinkFactory(code="abc", url="https://lstu.fr")

    response = client.get("/s/stats/abc.json", HTTP_ACCEPT=BROWSER_ACCEPT)

    assert response.json()["url"] == "https://lstu.fr"


def test_stats_detail_of_unknown_code_is_json_by_default(client):
    response = client.get("/s/stats/nothere")

    assert_shortener_error(response, 404, "The shortened URL http://testserver/s/nothere doesn't exist.")


@pytest.mark.parametrize("path", ["/s/fullstats", "/s/fullstats.json"])
def test_fullstats_counts_live_links_and_free_codes(client, settings, path):
    settings.SHORTENER_CODE_LENGTH = 6
    ShortLinkFactory(code="gen1")
    ShortLinkFactory(code="gen2")
    ShortLinkFactory(code="custom", is_custom=True)
    link_delete(link=ShortLinkFactory(code="gone"))

    response = client.get(path)

    assert response.status_code == status.HTTP_200_OK
    body = response.json()
    assert body["urls"] == 3
    assert body["empty"] == len(CODE_ALPHABET) ** 6 - 3
    assert len(str(body["timestamp"])) == 10
    assert abs(body["timestamp"] - time.time()) < 5


def test_fullstats_refuses_post(client):
    response = client.post("/s/fullstats", {"_format": "json"})

    assert_shortener_error(response, 405, messages.METHOD_NOT_ALLOWED)


def test_delete_with_json_suffix_answers_json(admin_mode_client):
    ShortLinkFactory(code="abc", url="https://lstu.fr")

    response = admin_mode_client.get("/s/d/abc.json")

    assert response.json() == {"success": True, "url": "https://lstu.fr", "short": "http://testserver/s/abc"}
    assert ShortLink.objects.get().is_deleted


@pytest.mark.parametrize("origin", ["moz-extension://0a1b2c3d-uuid", "chrome-extension://abcdefghijklmnop"])
def test_json_post_from_a_browser_extension_needs_no_csrf_token(user, origin):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)

    response = client.post(
        "/s/a",
        "lsturl=https%3A%2F%2Flstu.fr&format=json",
        content_type="application/x-www-form-urlencoded",
        HTTP_ORIGIN=origin,
    )

    assert response.json()["success"] is True
    assert ShortLink.objects.get().owner == user


def test_json_post_from_another_web_site_still_needs_the_csrf_token(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)

    response = client.post("/s/a?format=json", {"lsturl": "https://lstu.fr"}, HTTP_ORIGIN="https://evil.example")

    assert_shortener_error(response, 403, messages.CSRF_FAILED)
    assert not ShortLink.objects.exists()
