"""/accounts/keys/ (issue 44): a signed-in user lists, makes and revokes their own API keys and tokens."""

import html
import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.conf import settings
from django.shortcuts import resolve_url
from django.test import Client
from rest_framework import status

from common.api_keys import INTERFACES, digest, key_model
from pastes.models import ApiKey as PastesApiKey
from pastes.models import Paste
from reports.models import ApiKey as ReportsApiKey
from shortener.models import ApiKey as ShortenerApiKey
from shortener.models import ShortLink

pytestmark = pytest.mark.django_db

PAGE = "/accounts/keys/"
NOW = datetime(2026, 6, 15, 12, tzinfo=UTC)


def no_keys() -> bool:
    return not any(key_model(interface).objects.exists() for interface in INTERFACES)


def shown_key(response) -> str:
    """The raw key the page shows once, in its read-only field."""
    found = re.findall(r'id="new-key-value" type="text" value="([^"]+)"', response.content.decode())
    assert len(found) == 1, response.content.decode()[:2000]
    return found[0]


def table_rows(page: str) -> list[tuple[str, dict[str, str]]]:
    """The keys table: each row's id and its cells' text by column, as a reader sees them."""
    rows = re.findall(r'<tr id="key-([a-z]+-\d+)">(.*?)</tr>', page, re.S)
    return [
        (row_id, {label: " ".join(re.sub(r"<[^>]+>", " ", html.unescape(cell)).split()) for label, cell in cells})
        for row_id, row in rows
        for cells in [re.findall(r'<td data-label="([^"]+)">(.*?)</td>', row, re.S)]
    ]


def make(client: Client, **fields: str):
    return client.post(PAGE, {"interface": "reports", "name": "ci", "scope": "write", "expires_at": "", **fields})


# Anonymous visitors


def test_anonymous_is_sent_to_sign_in_and_back(client):
    response = client.get(PAGE)

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == f"{resolve_url(settings.LOGIN_URL)}?next=/accounts/keys/"


def test_anonymous_cannot_make_a_key(client):
    response = make(client)

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"].startswith(resolve_url(settings.LOGIN_URL))
    assert no_keys()


def test_anonymous_cannot_revoke_a_key(client, user):
    api_key, _raw_key = ReportsApiKey.issue(user=user)

    response = client.post(f"/accounts/keys/reports-{api_key.pk}/revoke")

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"].startswith(resolve_url(settings.LOGIN_URL))
    api_key.refresh_from_db()
    assert not api_key.is_revoked


# The list


def test_the_page_lists_every_key_and_token_of_the_user_and_no_one_elses(alice_client, user, other_user):
    with time_machine.travel(NOW, tick=False):
        reports_key, _ = ReportsApiKey.issue(user=user, name="ci pipeline")
    with time_machine.travel(NOW + timedelta(days=1), tick=False):
        pastes_key, _ = PastesApiKey.issue(user=user, name="editor", scope="read", expires_at=NOW + timedelta(days=9))
    with time_machine.travel(NOW + timedelta(days=2), tick=False):
        token, _ = ShortenerApiKey.issue(user=user, name="irc bot")
        token.revoke()
    ReportsApiKey.issue(user=other_user, name="bobs key")

    with time_machine.travel(NOW + timedelta(days=3), tick=False):
        response = alice_client.get(PAGE)

    assert response.status_code == status.HTTP_200_OK
    assert response["Cache-Control"].startswith("max-age=0") and "no-store" in response["Cache-Control"]
    page = response.content.decode()
    rows = table_rows(page)
    assert [row_id for row_id, _ in rows] == [
        f"shortener-{token.pk}",
        f"pastes-{pastes_key.pk}",
        f"reports-{reports_key.pk}",
    ]
    assert [cells for _, cells in rows] == [
        {
            "Interface": f"Short links {token.hint}…",
            "Name": "irc bot",
            "Scope": "Read and write",
            "Created": "June 17, 2026",
            "Last used": "Never",
            "Expires": "Never",
            "Revoked": "June 17, 2026, noon",
        },
        {
            "Interface": f"Pastes {pastes_key.hint}…",
            "Name": "editor",
            "Scope": "Read only",
            "Created": "June 16, 2026",
            "Last used": "Never",
            "Expires": "June 24, 2026",
            "Revoked": "Revoke",
        },
        {
            "Interface": f"Reports {reports_key.hint}…",
            "Name": "ci pipeline",
            "Scope": "Read and write",
            "Created": "June 15, 2026",
            "Last used": "Never",
            "Expires": "Never",
            "Revoked": "Revoke",
        },
    ]
    assert "bobs key" not in page


def test_an_expired_key_says_so(alice_client, user):
    ReportsApiKey.issue(user=user, name="old", expires_at=NOW)

    with time_machine.travel(NOW + timedelta(days=1), tick=False):
        page = alice_client.get(PAGE).content.decode()

    assert "(expired)" in page


# Making a key


@pytest.mark.parametrize("interface", ["reports", "pastes", "shortener"])
def test_the_user_makes_a_key_and_sees_it_once(alice_client, user, interface):
    response = make(alice_client, interface=interface, name="laptop")
    later = alice_client.get(PAGE)

    assert response.status_code == status.HTTP_200_OK
    assert "no-store" in response["Cache-Control"]
    raw_key = shown_key(response)
    api_key = key_model(interface).objects.get()
    assert (api_key.user, api_key.name, api_key.scope, api_key.expires_at) == (user, "laptop", "write", None)
    assert api_key.hashed_key == digest(raw_key)
    assert raw_key not in {api_key.hint, api_key.hashed_key, api_key.name}
    assert key_model(interface).authenticate(raw_key) == api_key
    assert raw_key not in later.content.decode()
    assert api_key.hint in later.content.decode()


def test_a_key_made_on_the_page_works_like_curl_would_use_it(alice_client):
    reports_key = shown_key(make(alice_client, interface="reports", scope="read"))
    pastes_key = shown_key(make(alice_client, interface="pastes"))
    token = shown_key(make(alice_client, interface="shortener"))
    curl = Client()  # no session, no cookie: only the header

    reports_read = curl.get("/api/v1/reports", HTTP_AUTHORIZATION=f"Bearer {reports_key}")
    reports_write = curl.post(
        "/api/v1/reports", {"url": "https://example.com/"}, HTTP_AUTHORIZATION=f"Bearer {reports_key}"
    )
    paste = curl.post("/pastes/create?name=notes", b"hello", content_type="text/plain", HTTP_AUTHORIZATION=pastes_key)
    link = curl.post("/s/a", {"lsturl": "https://lstu.fr"}, HTTP_AUTHORIZATION=f"Bearer {token}")

    assert reports_read.status_code == status.HTTP_200_OK
    assert reports_write.status_code == status.HTTP_403_FORBIDDEN
    assert paste.status_code == status.HTTP_200_OK
    assert Paste.objects.get().content == "hello"
    assert link.status_code == status.HTTP_200_OK
    assert ShortLink.objects.get().url == "https://lstu.fr"


def test_a_read_key_that_expires_on_a_day(alice_client, user):
    with time_machine.travel(NOW, tick=False):
        response = make(alice_client, interface="pastes", scope="read", expires_at="2026-07-01")

    assert response.status_code == status.HTTP_200_OK
    api_key = PastesApiKey.objects.get()
    assert (api_key.scope, api_key.expires_at) == ("read", datetime(2026, 7, 1, tzinfo=UTC))


def test_the_date_picker_offers_tomorrow_at_the_earliest(alice_client):
    with time_machine.travel(NOW, tick=False):
        page = alice_client.get(PAGE).content.decode()

    assert re.search(r'<input type="date" name="expires_at" min="2026-06-16"', page)


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"interface": "admin"}, "interface", "Select a valid choice. admin is not one of the available choices."),
        ({"interface": ""}, "interface", "This field is required."),
        ({"name": ""}, "name", "This field is required."),
        ({"name": "   "}, "name", "This field is required."),
        ({"name": "x" * 101}, "name", "Ensure this value has at most 100 characters (it has 101)."),
        ({"name": "nul\x00byte"}, "name", "Null characters are not allowed."),
        ({"scope": "admin"}, "scope", "Select a valid choice. admin is not one of the available choices."),
        ({"scope": ""}, "scope", "This field is required."),
        ({"expires_at": "2026-13-01"}, "expires_at", "Enter a valid date."),
        ({"expires_at": "next week"}, "expires_at", "Enter a valid date."),
        ({"expires_at": "2026-06-15"}, "expires_at", "Choose a day after today: this one has begun or is past."),
        ({"expires_at": "2020-01-01"}, "expires_at", "Choose a day after today: this one has begun or is past."),
    ],
)
def test_bad_input_is_a_form_error_and_writes_nothing(alice_client, fields, field, message):
    with time_machine.travel(NOW, tick=False):
        response = make(alice_client, **fields)

    assert response.status_code == status.HTTP_400_BAD_REQUEST
    assert response.context["form"].errors == {field: [message]}
    assert "new-key-value" not in response.content.decode()
    assert no_keys()


def test_making_a_key_needs_the_csrf_token(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)

    response = make(client)

    assert response.status_code == status.HTTP_403_FORBIDDEN
    assert no_keys()


def test_a_form_with_the_csrf_token_makes_the_key(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    csrf = client.get(PAGE).cookies["csrftoken"].value

    response = make(client, csrfmiddlewaretoken=csrf)

    assert response.status_code == status.HTTP_200_OK
    assert ReportsApiKey.objects.get().user == user


# Revoking a key


@pytest.mark.parametrize("interface", ["reports", "pastes", "shortener"])
def test_the_owner_revokes_a_key_and_it_stops_working_at_once(alice_client, user, interface):
    model = key_model(interface)
    api_key, raw_key = model.issue(user=user, name="leaked")

    response = alice_client.post(f"/accounts/keys/{interface}-{api_key.pk}/revoke", follow=True)

    assert response.redirect_chain == [(PAGE, status.HTTP_302_FOUND)]
    assert f"The key {api_key.hint}… is revoked: it no longer opens anything." in response.content.decode()
    api_key.refresh_from_db()
    assert api_key.revoked_at is not None
    assert model.authenticate(raw_key) is None


def test_a_revoked_key_is_refused_by_its_interface_right_after(alice_client, user):
    api_key, raw_key = ReportsApiKey.issue(user=user)
    curl = Client()
    assert curl.get("/api/v1/reports", HTTP_AUTHORIZATION=f"Bearer {raw_key}").status_code == 200

    alice_client.post(f"/accounts/keys/reports-{api_key.pk}/revoke")
    response = curl.get("/api/v1/reports", HTTP_AUTHORIZATION=f"Bearer {raw_key}")

    assert response.status_code == status.HTTP_401_UNAUTHORIZED
    assert response.json() == {"message": "Unauthenticated."}


def test_revoking_twice_keeps_the_first_time(alice_client, user):
    api_key, _raw_key = PastesApiKey.issue(user=user)
    with time_machine.travel(NOW, tick=False):
        alice_client.post(f"/accounts/keys/pastes-{api_key.pk}/revoke")
    with time_machine.travel(NOW + timedelta(hours=1), tick=False):
        response = alice_client.post(f"/accounts/keys/pastes-{api_key.pk}/revoke")

    assert response.status_code == status.HTTP_302_FOUND
    api_key.refresh_from_db()
    assert api_key.revoked_at == NOW


def test_another_users_key_is_not_found(bob_client, user):
    api_key, raw_key = ShortenerApiKey.issue(user=user)

    response = bob_client.post(f"/accounts/keys/shortener-{api_key.pk}/revoke")

    assert response.status_code == status.HTTP_404_NOT_FOUND
    assert ShortenerApiKey.authenticate(raw_key) == api_key


@pytest.mark.parametrize("path", ["reports-999999/revoke", "admin-1/revoke", "reports-x/revoke", "1/revoke"])
def test_an_unknown_key_is_not_found(alice_client, user, path):
    api_key, _raw_key = ReportsApiKey.issue(user=user)

    response = alice_client.post(f"/accounts/keys/{path}")

    assert response.status_code == status.HTTP_404_NOT_FOUND
    api_key.refresh_from_db()
    assert not api_key.is_revoked


def test_the_same_number_in_another_interface_is_another_key(alice_client, user, other_user):
    # Each interface numbers its keys: pastes-1 is not reports-1.
    mine, _ = ReportsApiKey.issue(user=user)
    bobs = PastesApiKey(pk=mine.pk, user=other_user)  # the same number, whatever the sequences are at
    bobs.set_raw_key(PastesApiKey.generate_raw_key())
    bobs.save()

    response = alice_client.post(f"/accounts/keys/pastes-{bobs.pk}/revoke")

    assert response.status_code == status.HTTP_404_NOT_FOUND
    bobs.refresh_from_db()
    mine.refresh_from_db()
    assert not bobs.is_revoked and not mine.is_revoked


def test_revoking_needs_a_post(alice_client, user):
    api_key, _raw_key = ReportsApiKey.issue(user=user)

    response = alice_client.get(f"/accounts/keys/reports-{api_key.pk}/revoke")

    assert response.status_code == status.HTTP_405_METHOD_NOT_ALLOWED
    api_key.refresh_from_db()
    assert not api_key.is_revoked


def test_revoking_needs_the_csrf_token(user):
    api_key, _raw_key = ReportsApiKey.issue(user=user)
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)

    response = client.post(f"/accounts/keys/reports-{api_key.pk}/revoke")

    assert response.status_code == status.HTTP_403_FORBIDDEN
    api_key.refresh_from_db()
    assert not api_key.is_revoked


def test_the_page_answers_only_get_head_and_post(alice_client):
    assert alice_client.head(PAGE).status_code == status.HTTP_200_OK
    assert alice_client.put(PAGE).status_code == status.HTTP_405_METHOD_NOT_ALLOWED
    assert no_keys()


def test_the_page_makes_one_query_per_interface(alice_client, user, django_assert_num_queries):
    for interface in INTERFACES:
        key_model(interface).issue(user=user)

    # The session and its user, then one query per interface's keys.
    with django_assert_num_queries(2 + len(INTERFACES)):
        alice_client.get(PAGE)


def test_an_inactive_user_has_no_page(alice_client, user):
    user.is_active = False
    user.save()

    response = alice_client.get(PAGE)

    # Django's sessions no longer sign in a deactivated user: back to the sign-in page.
    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"].startswith(resolve_url(settings.LOGIN_URL))
