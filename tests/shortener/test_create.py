"""POST /a: shortening, in JSON and HTML, with every kind of bad input."""

import pytest
from django.test import Client
from rest_framework import status

from shortener import messages
from shortener.models import CODE_ALPHABET, ShortLink
from shortener.services.links import RESERVED_CODES
from tests.shortener.asserts import any_number, assert_shortener_error, assert_shortener_error_page
from tests.shortener.factories import ShortLinkFactory
from tests.shortener.qr import assert_png_qr_of

# What a reserved word as custom text is told: every reserved word, and the URL sent.
RESERVED_REFUSAL = (
    'The shortened text can\'t be "a", "admin", "api", "cookie", "d", "domains", "export", "fullstats", '
    '"import", "logged-out", "login", "logout", "media", "moderation", "report", "static", "stats", "tokens". '
    "Your URL to shorten: https://example.com/"
)

pytestmark = pytest.mark.django_db


def shorten(client: Client, url: str, custom: str | None = None, **extra):
    data = {"shorturl": url, "_format": "json"}
    if custom is not None:
        data["shorturl-custom"] = custom
    return client.post("/s/a", data, **extra)


def test_create_json_returns_url_and_full_short_url(alice_client, user):
    response = shorten(alice_client, "https://example.com/some/page")

    assert response.status_code == status.HTTP_200_OK
    body = response.json()
    link = ShortLink.objects.get()
    qrcode = body.pop("qrcode")
    assert body == {
        "success": True,
        "url": "https://example.com/some/page",
        "short": f"http://testserver/s/{link.code}",
    }
    assert_png_qr_of(qrcode, body["short"])
    assert link.owner == user
    assert link.counter == 0


def test_generated_code_has_eight_chars_without_look_alikes(alice_client):
    shorten(alice_client, "https://example.com/")

    code = ShortLink.objects.get().code
    assert len(code) == 8
    assert set(code) <= set(CODE_ALPHABET)
    assert not set(code) & set("0O1lIio")


def test_create_trims_the_url(alice_client):
    response = shorten(alice_client, "  https://fiat-tux.fr \n")

    assert response.json()["url"] == "https://fiat-tux.fr"
    assert ShortLink.objects.get().url == "https://fiat-tux.fr"


def test_create_with_custom_text_uses_it_as_code(alice_client):
    response = shorten(alice_client, "https://example.com/", custom="my-Link_1")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["short"] == "http://testserver/s/my-Link_1"
    assert ShortLink.objects.get().is_custom is True


def test_create_accepts_lstu_field_names(alice_client):
    response = alice_client.post("/s/a", {"lsturl": "https://lstu.fr", "lsturl-custom": "lstu", "_format": "json"})

    assert response.status_code == status.HTTP_200_OK
    body = response.json()
    assert body.keys() == {"success", "url", "short", "qrcode"}
    assert body["short"] == "http://testserver/s/lstu"


def test_create_accepts_a_json_body(alice_client):
    response = alice_client.post(
        "/s/a", {"shorturl": "https://example.com/", "shorturl-custom": "json-body"}, content_type="application/json"
    )

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["short"].endswith("/s/json-body")


def test_same_user_same_url_gets_the_existing_code(alice_client):
    first = shorten(alice_client, "https://lstu.fr").json()

    second = shorten(alice_client, "https://lstu.fr").json()

    assert second == first
    assert ShortLink.objects.count() == 1


def test_other_user_same_url_gets_a_new_code(alice_client, bob_client):
    first = shorten(alice_client, "https://lstu.fr").json()

    second = shorten(bob_client, "https://lstu.fr").json()

    assert second["short"] != first["short"]
    assert ShortLink.objects.count() == 2


def test_same_url_with_custom_text_gets_its_own_code(alice_client):
    shorten(alice_client, "https://lstu.fr")

    response = shorten(alice_client, "https://lstu.fr", custom="mine")

    assert response.json()["short"].endswith("/s/mine")
    assert ShortLink.objects.count() == 2


def test_same_url_after_deletion_gets_a_new_code(alice_client, user):
    first = shorten(alice_client, "https://lstu.fr").json()
    ShortLink.objects.update(deleted_at="2026-01-01T00:00:00Z")

    second = shorten(alice_client, "https://lstu.fr").json()

    assert second["short"] != first["short"]


def test_custom_text_taken_by_someone_else_is_a_conflict(alice_client, other_user):
    ShortLinkFactory(code="taken", owner=other_user, url="https://other.example/")

    response = shorten(alice_client, "https://example.com/", custom="taken")

    assert_shortener_error(
        response, 409, 'The shortened text "taken" is already taken. Your URL to shorten: https://example.com/'
    )
    assert ShortLink.objects.get().url == "https://other.example/"


def test_custom_text_of_a_deleted_link_stays_taken(alice_client, other_user):
    ShortLinkFactory(code="spam", owner=other_user, deleted_at="2026-01-01T00:00:00Z")

    response = shorten(alice_client, "https://example.com/", custom="spam")

    assert_shortener_error(
        response, 409, 'The shortened text "spam" is already taken. Your URL to shorten: https://example.com/'
    )


def test_repeating_own_custom_link_returns_it(alice_client):
    first = shorten(alice_client, "https://example.com/", custom="again").json()

    response = shorten(alice_client, "https://example.com/", custom="again")

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == first


@pytest.mark.parametrize("word", sorted(RESERVED_CODES))
def test_reserved_words_cannot_be_custom_text(alice_client, word):
    response = shorten(alice_client, "https://example.com/", custom=word)

    assert_shortener_error(response, 400, RESERVED_REFUSAL)
    assert not ShortLink.objects.exists()


def test_reserved_words_are_refused_in_any_case(alice_client):
    response = shorten(alice_client, "https://example.com/", custom="Stats")

    assert_shortener_error(response, 400, RESERVED_REFUSAL)


@pytest.mark.parametrize("custom", ["has space", "dot.json", "slash/x", "é", "x" * 65])
def test_custom_text_outside_the_allowed_characters_is_refused(alice_client, custom):
    response = shorten(alice_client, "https://example.com/", custom=custom)

    assert_shortener_error(
        response, 400, 'The shortened text must be 1 to 64 characters among letters, digits, "-" and "_".'
    )


def test_empty_custom_text_counts_as_absent(alice_client):
    response = shorten(alice_client, "https://example.com/", custom="  ")

    assert response.status_code == status.HTTP_200_OK
    assert ShortLink.objects.get().is_custom is False


def test_sixty_four_char_custom_text_is_accepted(alice_client):
    response = shorten(alice_client, "https://example.com/", custom="x" * 64)

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["short"] == "http://testserver/s/" + "x" * 64
    assert ShortLink.objects.get().code == "x" * 64


@pytest.mark.parametrize("url", ["truc", "ftp://example.com/file", "javascript:alert(1)", "http://", "https:///x"])
def test_invalid_urls_are_refused(alice_client, url):
    response = shorten(alice_client, url)

    assert_shortener_error(response, 400, f"{url} is not a valid URL.")
    assert not ShortLink.objects.exists()


def test_missing_url_is_refused(alice_client):
    response = alice_client.post("/s/a", {"_format": "json"})

    assert_shortener_error(response, 400, messages.URL_MISSING)


def test_url_longer_than_2048_chars_is_refused(alice_client):
    url = "https://example.com/" + "a" * 2029

    response = shorten(alice_client, url)

    assert_shortener_error(response, 400, "The URL to shorten is too long: 2048 characters at most.")


def test_url_of_exactly_2048_chars_is_accepted(alice_client):
    url = "https://example.com/" + "a" * 2028

    response = shorten(alice_client, url)

    assert response.status_code == status.HTTP_200_OK
    assert ShortLink.objects.get().url == url


def test_blocked_host_is_refused(alice_client, settings):
    settings.SHORTENER_BLOCKED_HOSTS = r"(^|\.)google\.(fr|com)$"

    response = shorten(alice_client, "https://www.google.com/search")

    assert_shortener_error(
        response,
        403,
        "The URL you want to shorten comes from a domain (www.google.com) that is blacklisted on this server "
        "(usually because of spammers that use this domain).",
    )
    assert not ShortLink.objects.exists()


def test_host_outside_the_block_list_is_accepted(alice_client, settings):
    settings.SHORTENER_BLOCKED_HOSTS = r"(^|\.)google\.(fr|com)$"

    response = shorten(alice_client, "https://google.de/")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["url"] == "https://google.de/"
    assert ShortLink.objects.get().url == "https://google.de/"


def test_create_needs_login_in_json(client, db):
    response = shorten(client, "https://example.com/")

    assert_shortener_error(response, 401, messages.LOGIN_REQUIRED)
    assert not ShortLink.objects.exists()


def test_create_sends_anonymous_browsers_to_login(client, db):
    response = client.post("/s/a", {"shorturl": "https://example.com/"})

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/s/login?next=/s/"


def test_create_refuses_get(alice_client):
    response = alice_client.get("/s/a", {"_format": "json"})

    assert_shortener_error(response, 405, messages.METHOD_NOT_ALLOWED)
    assert response["Allow"] == "POST"


def test_create_is_rate_limited_per_user(alice_client, bob_client, settings):
    settings.SHORTENER_CREATE_RATE_LIMIT = 2
    shorten(alice_client, "https://example.com/1")
    shorten(alice_client, "https://example.com/2")

    refused = shorten(alice_client, "https://example.com/3")
    other_user = shorten(bob_client, "https://example.com/3")

    assert_shortener_error(refused, 429, any_number(messages.TOO_MANY_LINKS))
    assert other_user.status_code == status.HTTP_200_OK
    assert ShortLink.objects.filter(url="https://example.com/3").count() == 1


def test_create_html_redirects_to_the_main_page_with_short_url_and_qr_code(alice_client):
    response = alice_client.post("/s/a", {"shorturl": "https://example.com/page"})

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/s/"
    code = ShortLink.objects.get().code
    page = alice_client.get("/s/").content.decode()
    assert f"Your short URL: http://testserver/s/{code}" in page
    assert f'value="http://testserver/s/{code}"' in page
    assert "<svg" in page
    assert 'data-copy-target="short-url"' in page


def test_main_page_shows_the_result_only_once(alice_client):
    alice_client.post("/s/a", {"shorturl": "https://example.com/page"})
    alice_client.get("/s/")

    page = alice_client.get("/s/").content.decode()

    assert "<svg" not in page


def test_create_html_failure_shows_the_form_with_the_message(alice_client):
    response = alice_client.post("/s/a", {"shorturl": "truc"})

    assert_shortener_error_page(response, 400, "truc is not a valid URL.")
    page = response.content.decode()
    assert 'value="truc"' in page


def test_html_create_form_needs_the_csrf_token(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)

    response = client.post("/s/a", {"shorturl": "https://example.com/"})

    assert_shortener_error_page(response, 403, messages.CSRF_FAILED)
    assert not ShortLink.objects.exists()


def test_json_create_with_session_cookie_needs_no_csrf_token(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)

    response = shorten(client, "https://example.com/")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["success"] is True
    assert ShortLink.objects.get().owner == user


def test_json_create_from_another_site_is_refused_without_token(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)

    response = shorten(client, "https://example.com/", HTTP_ORIGIN="https://evil.test")

    assert_shortener_error(response, 403, messages.CSRF_FAILED)
    assert not ShortLink.objects.exists()


def test_short_url_uses_the_shortener_host_at_its_root(settings, user):
    settings.SHORTENER_HOST = "sho.rt"
    settings.ALLOWED_HOSTS = ["testserver", "sho.rt"]
    client = Client(HTTP_HOST="sho.rt")
    client.force_login(user)

    response = client.post("/a", {"shorturl": "https://example.com/", "_format": "json"})

    code = ShortLink.objects.get().code
    assert response.json()["short"] == f"http://sho.rt/{code}"


def test_url_with_nul_character_is_refused(alice_client):
    response = shorten(alice_client, "https://example.com/a\x00b")

    assert_shortener_error(response, 400, 'The field "shorturl" must not contain NUL characters.')
    assert not ShortLink.objects.exists()


def test_internationalised_url_is_shortened_and_followed(alice_client, client):
    response = shorten(alice_client, "https://bücher.example/straße?q=é")

    code = response.json()["short"].rsplit("/", 1)[1]
    redirect = client.get(f"/s/{code}")
    assert response.json()["url"] == "https://bücher.example/straße?q=é"
    assert redirect["Location"] == "https://b%C3%BCcher.example/stra%C3%9Fe?q=%C3%A9"


def test_reserved_word_message_lists_every_word(alice_client):
    response = shorten(alice_client, "https://example.com/", custom="api")

    assert response.json()["msg"] == (
        'The shortened text can\'t be "a", "admin", "api", "cookie", "d", "domains", "export", "fullstats", '
        '"import", "logged-out", "login", "logout", "media", "moderation", "report", "static", "stats", "tokens". '
        "Your URL to shorten: https://example.com/"
    )


def test_generated_code_that_is_a_reserved_word_is_skipped(alice_client, monkeypatch):
    codes = iter(["admin", "good2345"])
    monkeypatch.setattr(ShortLink, "generate_code", classmethod(lambda cls: next(codes)))

    response = shorten(alice_client, "https://example.com/")

    assert response.json()["short"].endswith("/s/good2345")


def test_generated_code_collision_is_retried(alice_client, other_user, monkeypatch):
    ShortLinkFactory(code="taken234", owner=other_user)
    codes = iter(["taken234", "fresh234"])
    monkeypatch.setattr(ShortLink, "generate_code", classmethod(lambda cls: next(codes)))

    response = shorten(alice_client, "https://example.com/")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["short"].endswith("/s/fresh234")


def test_running_out_of_free_codes_is_reported(alice_client, other_user, monkeypatch):
    ShortLinkFactory(code="taken234", owner=other_user)
    monkeypatch.setattr(ShortLink, "generate_code", classmethod(lambda cls: "taken234"))

    response = shorten(alice_client, "https://example.com/")

    assert_shortener_error(response, 503, messages.CODE_EXHAUSTED)
    assert ShortLink.objects.count() == 1
