"""Password-protected short links (issue 23): a page on the way, CSRF, hashed at rest, rate limited."""

import json
import re

import pytest
from django.conf import global_settings
from django.contrib.auth.hashers import make_password
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, RequestFactory
from rest_framework import status

from shortener import fastpath, messages
from shortener.fastpath.wsgi import shortcut_answer
from shortener.models import ShortLink
from tests.shortener.asserts import assert_shortener_error, assert_shortener_error_page
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

JSON = {"_format": "json"}
SHORT = "http://testserver/s/secret"
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"


@pytest.fixture
def link(alice_client):
    response = alice_client.post(
        "/s/a", {"shorturl": "https://hidden.example/", "shorturl-custom": "secret", "password": "s3same", **JSON}
    )
    assert response.json()["protected"] is True
    return ShortLink.objects.get(code="secret")


def test_the_password_is_hashed_at_rest(link):
    assert link.password_hash
    assert "s3same" not in link.password_hash


def test_a_browser_gets_the_password_page_not_the_target(client, link):
    response = client.get("/s/secret", HTTP_USER_AGENT=FIREFOX)

    html = response.content.decode()
    assert response.status_code == status.HTTP_401_UNAUTHORIZED
    assert "hidden.example" not in html
    assert 'type="password"' in html and 'name="csrfmiddlewaretoken"' in html
    assert ShortLink.objects.get(pk=link.pk).counter == 0


def test_json_clients_are_told_a_password_is_needed(client, link):
    assert_shortener_error(client.get("/s/secret", JSON), 401, messages.LINK_PASSWORD_REQUIRED.format(short=SHORT))


def test_the_right_password_redirects_and_counts_the_visit(link):
    browser = Client(enforce_csrf_checks=True, HTTP_USER_AGENT=FIREFOX)
    token = browser.get("/s/secret").cookies["csrftoken"].value

    response = browser.post("/s/secret", {"password": "s3same", "csrfmiddlewaretoken": token})

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "https://hidden.example/"
    fastpath.flush_visits()
    assert ShortLink.objects.get(pk=link.pk).counter == 1


def test_the_form_needs_the_csrf_token(link):
    browser = Client(enforce_csrf_checks=True)

    assert_shortener_error_page(browser.post("/s/secret", {"password": "s3same"}), 403, messages.CSRF_FAILED)


def test_a_wrong_password_is_refused_in_both_formats(client, link):
    wrong = messages.LINK_PASSWORD_WRONG.format(short=SHORT)

    assert_shortener_error_page(client.post("/s/secret", {"password": "nope"}), 403, wrong)
    assert_shortener_error(client.post("/s/secret", {"password": "nope", **JSON}), 403, wrong)


def test_a_json_client_sends_the_password_and_gets_the_url(client, link):
    response = client.post("/s/secret", json.dumps({"password": "s3same"}), content_type="application/json")

    assert response.json() == {"success": True, "url": "https://hidden.example/"}


def test_tries_are_rate_limited_per_address(client, link, settings):
    settings.SHORTENER_LOGIN_RATE_LIMIT = 3
    for _ in range(3):
        client.post("/s/secret", {"password": "nope", **JSON})

    response = client.post("/s/secret", {"password": "s3same", **JSON})

    assert_shortener_error(response, 429, re.compile(r"Too many password attempts\. Please retry in \d+ second\(s\)\."))
    assert int(response["Retry-After"]) > 0


def test_the_fast_path_leaves_protected_links_to_django(client, link):
    client.get("/s/secret")  # the view has cached it in this process

    assert fastpath.resolve("", "secret").protected is True
    assert shortcut_answer(RequestFactory().get("/s/secret").environ) is None


def test_a_plain_link_still_takes_no_post(client, user):
    ShortLinkFactory(code="open", owner=user)

    assert_shortener_error(client.post("/s/open", JSON), 405, messages.METHOD_NOT_ALLOWED)


def test_the_owner_sets_and_removes_a_password_by_editing(alice_client, user):
    ShortLinkFactory(code="later", owner=user, url="https://later.example/")

    set_response = alice_client.patch("/s/edit/later", json.dumps({"password": "pw"}), content_type="application/json")
    assert set_response.json()["protected"] is True
    assert alice_client.get("/s/later", JSON).status_code == status.HTTP_401_UNAUTHORIZED

    removed = alice_client.patch("/s/edit/later", json.dumps({"remove_password": "1"}), content_type="application/json")
    assert "protected" not in removed.json()
    assert alice_client.get("/s/later")["Location"] == "https://later.example/"


def test_a_protected_link_is_never_handed_back_for_the_same_url(alice_client, link):
    plain = alice_client.post("/s/a", {"shorturl": "https://hidden.example/", **JSON}).json()

    assert plain["short"] != SHORT
    assert "protected" not in plain


def test_the_export_carries_the_hash_and_an_import_protects_the_link_alike(alice_client, bob_client, link):
    [row] = json.loads(alice_client.get("/s/export").getvalue())
    assert row["password_hash"] == link.password_hash
    ShortLink.objects.all().delete()

    upload = SimpleUploadedFile("links.json", json.dumps([row]).encode())
    assert bob_client.post("/s/import", {"file": upload, **JSON}).json()["created"] == 1
    assert bob_client.get("/s/secret", JSON).status_code == status.HTTP_401_UNAUTHORIZED
    assert bob_client.post("/s/secret", {"password": "s3same", **JSON}).json()["url"] == "https://hidden.example/"


def test_an_import_refuses_a_made_up_hash(alice_client):
    rows = [{"url": "https://x.example/", "password_hash": "plaintext"}]
    upload = SimpleUploadedFile("links.json", json.dumps(rows).encode())

    body = alice_client.post("/s/import", {"file": upload, **JSON}).json()

    assert body["refused"] == 1
    assert body["lines"][0]["msg"] == messages.PASSWORD_HASH_INVALID


# --- Imported hashes must cost what the server's own cost (issue 49) ---------------------------

DJANGO_HASHERS = global_settings.PASSWORD_HASHERS  # PBKDF2 first, as the service runs
SALT = "abcdefghijklmnopqrstuv"  # 22 letters: as much entropy as Django's own salts
DIGEST = "A" * 43 + "="


@pytest.mark.parametrize(
    "foreign",
    [
        f"pbkdf2_sha256$150000000$abcdefgh${DIGEST}",  # the report's: 34 s of CPU per guess
        f"pbkdf2_sha256$2000000000${SALT}${DIGEST}",
        f"pbkdf2_sha256$1000${SALT}${DIGEST}",  # cheaper than the server's: not its own either
        f"pbkdf2_sha1$150000000${SALT}${DIGEST}",
        "bcrypt_sha256$$2b$31$" + "a" * 53,
        f"scrypt${SALT}$1048576$8$1${DIGEST}",
        f"argon2$argon2id$v=19$m=4194304,t=100,p=1${SALT}${DIGEST}",
        f"pbkdf2_sha256$many${SALT}${DIGEST}",  # malformed: known algorithm, no work factor
        "pbkdf2_sha256$",
    ],
)
def test_an_import_refuses_a_hash_the_server_would_not_make(settings, alice_client, client, foreign):
    settings.PASSWORD_HASHERS = DJANGO_HASHERS
    rows = [{"url": "https://example.com/x", "custom": "dosB", "password_hash": foreign}]
    upload = SimpleUploadedFile("links.json", json.dumps(rows).encode())

    body = alice_client.post("/s/import", {"file": upload, **JSON}).json()

    assert (body["created"], body["refused"]) == (0, 1)
    assert body["lines"][0]["msg"] == messages.PASSWORD_HASH_FOREIGN.format(algorithm="pbkdf2_sha256")
    assert not ShortLink.objects.filter(code="dosB").exists()
    assert client.post("/s/dosB", {"password": "guess", **JSON}).status_code == status.HTTP_404_NOT_FOUND


def test_an_import_keeps_a_hash_made_by_the_servers_own_hasher(settings, alice_client, client):
    settings.PASSWORD_HASHERS = DJANGO_HASHERS
    rows = [{"url": "https://hidden.example/", "custom": "secret", "password_hash": make_password("s3same")}]
    upload = SimpleUploadedFile("links.json", json.dumps(rows).encode())

    assert alice_client.post("/s/import", {"file": upload, **JSON}).json()["created"] == 1
    assert client.post("/s/secret", {"password": "s3same", **JSON}).json()["url"] == "https://hidden.example/"
