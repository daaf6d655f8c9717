"""PATCH/POST /edit/<code>: changing a link's target, expiry, visit limit, tags and password (issue 23)."""

import datetime
import json

import pytest
from django.test import Client, RequestFactory
from django.utils import timezone
from rest_framework import status

from shortener import messages
from shortener.fastpath.wsgi import shortcut_answer
from shortener.models import ApiKey, ShortLink
from shortener.services.lifetime import MAX_VISITS_LIMIT
from tests.shortener.asserts import assert_shortener_error, assert_shortener_error_page
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

JSON = {"_format": "json"}
SHORT = "http://testserver/s/ed1"


@pytest.fixture
def link(user):
    return ShortLinkFactory(code="ed1", owner=user, url="https://old.example/")


def patch_json(client, code, data, **extra):
    return client.patch(f"/s/edit/{code}", json.dumps(data), content_type="application/json", **extra)


def test_owner_changes_target_expiry_and_limit_in_json(alice_client, link):
    expires = (timezone.now() + datetime.timedelta(days=2)).replace(microsecond=0)

    response = patch_json(
        alice_client, "ed1", {"url": "https://new.example/", "expires_at": expires.isoformat(), "max_visits": 9}
    )

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {
        "success": True,
        "url": "https://new.example/",
        "short": SHORT,
        "expires_at": int(expires.timestamp()),
        "max_visits": 9,
    }
    link.refresh_from_db()
    assert (link.url, link.expires_at, link.max_visits) == ("https://new.example/", expires, 9)


def test_a_post_form_works_as_the_contract_says(alice_client, link):
    response = alice_client.post("/s/edit/ed1", {"url": "https://form.example/", "_format": "json"})

    assert response.json()["url"] == "https://form.example/"
    assert ShortLink.objects.get(pk=link.pk).url == "https://form.example/"


def test_a_form_encoded_patch_is_read_too(alice_client, link):
    response = alice_client.patch(
        "/s/edit/ed1?_format=json", "max_visits=3", content_type="application/x-www-form-urlencoded"
    )

    assert response.json()["max_visits"] == 3


def test_empty_expiry_and_limit_remove_them_and_absent_fields_stay(alice_client, user):
    ShortLinkFactory(
        code="ed2",
        owner=user,
        url="https://keep.example/",
        max_visits=4,
        expires_at=timezone.now() + datetime.timedelta(1),
    )

    response = patch_json(alice_client, "ed2", {"expires_at": "", "max_visits": ""})

    assert response.json() == {"success": True, "url": "https://keep.example/", "short": "http://testserver/s/ed2"}
    link = ShortLink.objects.get(code="ed2")
    assert (link.expires_at, link.max_visits, link.url) == (None, None, "https://keep.example/")


def test_the_redirect_follows_the_change_at_once(alice_client, client, link):
    assert client.get("/s/ed1")["Location"] == "https://old.example/"  # now cached in this process
    # The WSGI shortcut answers from this process's copy, before Django.
    assert shortcut_answer(RequestFactory().get("/s/ed1").environ).header("Location") == "https://old.example/"

    patch_json(alice_client, "ed1", {"url": "https://new.example/"})

    cached = shortcut_answer(RequestFactory().get("/s/ed1").environ)
    assert cached is None or cached.header("Location") == "https://new.example/"
    assert client.get("/s/ed1")["Location"] == "https://new.example/"


@pytest.mark.parametrize(
    ("data", "status_code", "message"),
    [
        ({"url": "javascript:alert(1)"}, 400, messages.URL_INVALID.format(url="javascript:alert(1)")),
        ({"url": ""}, 400, messages.URL_MISSING),
        ({"url": "ftp://files.example/"}, 400, messages.URL_INVALID.format(url="ftp://files.example/")),
        ({"expires_at": "soon"}, 400, messages.EXPIRES_INVALID),
        ({"expires_at": "2001-01-01T00:00"}, 400, messages.EXPIRES_IN_PAST),
        ({"max_visits": "0"}, 400, messages.MAX_VISITS_INVALID.format(limit=MAX_VISITS_LIMIT)),
        ({"max_visits": True}, 400, 'The field "max_visits" must be a string.'),
        ({}, 400, messages.NOTHING_TO_UPDATE),
        ({"tags": "a b c d e f g h i j k"}, 400, messages.TAGS_INVALID.format(count=10, limit=32)),
        ({"tags": "<b>"}, 400, messages.TAGS_INVALID.format(count=10, limit=32)),
    ],
)
def test_bad_input_gets_c_error_shape_and_changes_nothing(alice_client, link, data, status_code, message):
    response = patch_json(alice_client, "ed1", data)

    assert_shortener_error(response, status_code, message)
    assert ShortLink.objects.get(pk=link.pk).url == "https://old.example/"


def test_a_blocked_host_is_refused_as_on_creation(alice_client, link, settings):
    settings.SHORTENER_BLOCKED_HOSTS = r"(^|\.)spam\.example$"

    response = patch_json(alice_client, "ed1", {"url": "https://www.spam.example/"})

    assert_shortener_error(response, 403, messages.HOST_BLOCKED.format(host="www.spam.example"))


def test_a_url_the_owner_already_shortened_is_a_conflict(alice_client, user, link):
    ShortLinkFactory(code="other", owner=user, url="https://dup.example/")

    response = patch_json(alice_client, "ed1", {"url": "https://dup.example/"})

    assert_shortener_error(response, 409, messages.URL_ALREADY_SHORTENED.format(short="other"))


def test_another_user_cannot_edit(bob_client, link):
    response = patch_json(bob_client, "ed1", {"url": "https://bob.example/"})

    assert_shortener_error(response, 403, messages.NOT_YOUR_LINK.format(short=SHORT))
    assert ShortLink.objects.get(pk=link.pk).url == "https://old.example/"


def test_anonymous_must_log_in(client, link):
    assert_shortener_error(patch_json(client, "ed1", {"url": "https://x.example/"}), 401, messages.LOGIN_REQUIRED)
    page = client.get("/s/edit/ed1")
    assert page.status_code == status.HTTP_302_FOUND
    assert page["Location"].startswith("/s/login?next=")


def test_admin_mode_edits_anyones_link(admin_mode_client, other_user):
    ShortLinkFactory(code="bobs", owner=other_user, url="https://bob.example/")

    response = patch_json(admin_mode_client, "bobs", {"url": "https://fixed.example/"})

    assert response.status_code == status.HTTP_200_OK
    assert ShortLink.objects.get(code="bobs").url == "https://fixed.example/"


def test_a_token_edits_its_users_links(client, user, link):
    _key, token = ApiKey.issue(user=user, name="bot")

    response = patch_json(client, "ed1", {"max_visits": 2}, HTTP_AUTHORIZATION=f"Bearer {token}")

    assert response.json()["max_visits"] == 2


def test_unknown_and_deleted_codes_are_404(alice_client, user):
    ShortLinkFactory(code="gone", owner=user, deleted_at=timezone.now())

    assert_shortener_error(
        patch_json(alice_client, "nope", {"url": "https://x.example/"}),
        404,
        messages.LINK_UNKNOWN.format(short="http://testserver/s/nope"),
    )
    assert_shortener_error(
        patch_json(alice_client, "gone", {"url": "https://x.example/"}),
        404,
        messages.LINK_GONE.format(short="http://testserver/s/gone"),
    )


def test_the_html_form_needs_the_csrf_token(user, link):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)

    refused = browser.post("/s/edit/ed1", {"url": "https://csrf.example/"})

    assert_shortener_error_page(refused, 403, messages.CSRF_FAILED)
    page = browser.get("/s/edit/ed1")
    token = page.cookies["csrftoken"].value
    saved = browser.post("/s/edit/ed1", {"url": "https://csrf.example/", "csrfmiddlewaretoken": token})
    assert saved.status_code == status.HTTP_302_FOUND
    assert saved["Location"] == "/s/stats/ed1"
    assert ShortLink.objects.get(pk=link.pk).url == "https://csrf.example/"


def test_the_html_form_shows_an_error_in_place(alice_client, link):
    response = alice_client.post("/s/edit/ed1", {"url": "nope"})

    assert_shortener_error_page(response, 400, messages.URL_INVALID.format(url="nope"))
    assert 'value="nope"' in response.content.decode()


def test_a_cross_site_json_patch_is_refused(user, link):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)

    response = patch_json(browser, "ed1", {"url": "https://evil.example/"}, HTTP_SEC_FETCH_SITE="cross-site")

    assert_shortener_error(response, 403, messages.CSRF_FAILED)
