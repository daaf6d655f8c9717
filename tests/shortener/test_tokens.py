"""Personal API tokens (shr_…): scoped, revocable, hashed, rate limited, refused on A and B."""

import hashlib
import io

import pytest
from django.core.management import call_command
from django.test import Client
from rest_framework import status

from pastes.models import ApiKey as PastesApiKey
from pastes.models import Paste
from reports.models import ApiKey as ReportsApiKey
from shortener import messages
from shortener.models import ApiKey, ShortLink
from tests.pastes.asserts import assert_pastes_error
from tests.shortener.asserts import assert_shortener_error, assert_shortener_error_page
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def token(user) -> str:
    _api_key, raw_key = ApiKey.issue(user=user, name="bot")
    return raw_key


def bearer(raw_key: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {raw_key}"}


def csrf_client() -> Client:
    return Client(enforce_csrf_checks=True)


def test_create_api_key_command_issues_a_hashed_shr_token(user):
    out = io.StringIO()

    call_command("create_api_key", user.username, "--interface", "shortener", "--name", "irc bot", stdout=out)

    raw_key = out.getvalue().splitlines()[-1]
    api_key = ApiKey.objects.get()
    assert raw_key.startswith("shr_")
    assert api_key.hashed_key == hashlib.sha256(raw_key.encode()).hexdigest()
    assert raw_key not in {api_key.hint, api_key.hashed_key, api_key.name}
    assert ApiKey.authenticate(raw_key).user == user


def test_token_shortens_without_session_or_csrf_and_answers_json(token, user):
    response = csrf_client().post("/s/a", {"lsturl": "https://lstu.fr"}, **bearer(token))

    assert response.status_code == status.HTTP_200_OK
    body = response.json()
    link = ShortLink.objects.get()
    assert body["short"] == f"http://testserver/s/{link.code}"
    assert link.owner == user
    assert "sessionid" not in response.cookies


def test_token_lists_only_its_users_links(token, user, other_user):
    ShortLinkFactory(code="mine", owner=user)
    ShortLinkFactory(code="bobs", owner=other_user)

    response = Client().get("/s/stats", **bearer(token))

    assert [item["short"] for item in response.json()] == ["http://testserver/s/mine"]


def test_token_never_gets_admin_rights_even_with_an_admin_session(admin_mode_client, token):
    ShortLinkFactory(code="abc")

    delete = admin_mode_client.get("/s/d/abc", **bearer(token))
    listing = admin_mode_client.get("/s/stats", **bearer(token))

    assert_shortener_error(delete, 403, messages.NOT_ADMIN)
    assert not ShortLink.objects.get().is_deleted
    assert listing.json() == []


def test_token_cannot_enter_admin_mode(token, admin_password):
    response = Client().post("/s/stats", {"adminpwd": admin_password}, **bearer(token))

    assert_shortener_error(response, 403, messages.ADMIN_NEEDS_SESSION)


@pytest.mark.parametrize(
    "header",
    ["Bearer shr_not-a-real-token", "Bearer ", "Basic dXNlcjpwYXNz", "shr_bare-token-without-scheme"],
)
def test_bad_authorization_is_a_json_401(header, user):
    response = Client().post("/s/a", {"lsturl": "https://lstu.fr"}, HTTP_AUTHORIZATION=header)

    assert_shortener_error(response, 401, messages.TOKEN_INVALID)
    assert response["WWW-Authenticate"] == "Bearer"
    assert not ShortLink.objects.exists()


def test_revoked_token_is_refused(token):
    ApiKey.objects.get().revoke()

    response = Client().post("/s/a", {"lsturl": "https://lstu.fr"}, **bearer(token))

    assert_shortener_error(response, 401, messages.TOKEN_INVALID)
    assert not ShortLink.objects.exists()


def test_token_of_an_inactive_user_is_refused(token, user):
    user.is_active = False
    user.save()

    response = Client().get("/s/stats", **bearer(token))

    assert_shortener_error(response, 401, messages.TOKEN_INVALID)


@pytest.mark.parametrize("model", [ReportsApiKey, PastesApiKey])
def test_reports_and_pastes_keys_are_not_shortener_tokens(model, user):
    _api_key, raw_key = model.issue(user=user)

    response = Client().post("/s/a", {"lsturl": "https://lstu.fr"}, **bearer(raw_key))

    assert_shortener_error(response, 401, messages.TOKEN_INVALID)
    assert not ShortLink.objects.exists()


def test_shortener_token_is_refused_on_interface_a(api_client, token):
    response = api_client.get("/api/v1/reports/", **bearer(token))

    # Interface A's own error shape (tests/reports owns its helper).
    assert response.status_code == status.HTTP_401_UNAUTHORIZED
    assert response.json() == {"message": "Unauthenticated."}


def test_shortener_token_is_refused_on_interface_b(api_client, token):
    response = api_client.post("/pastes/create", {"name": "n", "content": "c"}, format="json", **bearer(token))

    assert_pastes_error(response, 401, "Invalid or revoked API key.")
    assert not Paste.objects.exists()


def test_token_requests_are_rate_limited_per_token(token, user, settings):
    settings.SHORTENER_TOKEN_RATE_LIMIT = 2
    _other, other_token = ApiKey.issue(user=user)
    client = Client()

    answers = [client.get("/s/stats", **bearer(token)) for _ in range(3)]
    other = client.get("/s/stats", **bearer(other_token))

    assert [answer.status_code for answer in answers] == [200, 200, 429]
    assert int(answers[2]["Retry-After"]) > 0
    assert answers[2].json()["success"] is False
    assert other.status_code == status.HTTP_200_OK


def test_token_is_ignored_where_tokens_are_not_accepted(token):
    # Token management needs the session: a token cannot make more tokens.
    response = Client().post("/s/tokens", {"_format": "json"}, **bearer(token))

    assert_shortener_error(response, 401, messages.LOGIN_REQUIRED)
    assert ApiKey.objects.count() == 1


def test_user_makes_a_token_on_the_stats_page_and_sees_it_once(user):
    client = csrf_client()
    client.force_login(user)
    page = client.get("/s/stats")
    csrf = page.cookies["csrftoken"].value

    made = client.post("/s/tokens", {"name": "ShareX", "csrfmiddlewaretoken": csrf})
    later = client.get("/s/stats")

    raw_key = made.context["new_token"]
    assert made.status_code == status.HTTP_200_OK
    assert raw_key in made.content.decode()
    assert ApiKey.authenticate(raw_key).user == user
    assert raw_key not in later.content.decode()
    assert ApiKey.objects.get().hint in later.content.decode()


def test_making_a_token_from_a_form_needs_the_csrf_token(user):
    client = csrf_client()
    client.force_login(user)

    response = client.post("/s/tokens", {"name": "x"})

    assert_shortener_error_page(response, 403, messages.CSRF_FAILED)
    assert not ApiKey.objects.exists()


def test_token_name_too_long_is_refused(alice_client):
    response = alice_client.post("/s/tokens", {"name": "x" * 101, "_format": "json"})

    assert_shortener_error(response, 400, messages.TOKEN_NAME_TOO_LONG.format(limit=100))
    assert not ApiKey.objects.exists()


def test_anonymous_cannot_make_a_token(client):
    response = client.post("/s/tokens", {"name": "x"})

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"].startswith("/s/login")
    assert not ApiKey.objects.exists()


def test_user_revokes_own_token(alice_client, token):
    api_key = ApiKey.objects.get()

    response = alice_client.post(f"/s/tokens/{api_key.pk}/revoke")
    after = Client().get("/s/stats", **bearer(token))

    assert response.status_code == status.HTTP_302_FOUND
    api_key.refresh_from_db()
    assert api_key.is_revoked
    assert_shortener_error(after, 401, messages.TOKEN_INVALID)


def test_another_user_cannot_revoke_the_token(bob_client, token):
    api_key = ApiKey.objects.get()

    response = bob_client.post(f"/s/tokens/{api_key.pk}/revoke", {"_format": "json"})

    assert_shortener_error(response, 404, messages.TOKEN_UNKNOWN)
    api_key.refresh_from_db()
    assert not api_key.is_revoked


def test_revoking_an_unknown_token_is_404(alice_client):
    response = alice_client.post("/s/tokens/999999/revoke", {"_format": "json"})

    assert_shortener_error(response, 404, messages.TOKEN_UNKNOWN)


def test_staff_issue_a_token_in_the_admin_and_see_it_once(admin_client, user):
    form = {"user": user.pk, "name": "bot", "scope": "write"}  # the form's scope menu sends its default
    response = admin_client.post("/admin/shortener/apikey/add/", form, follow=True)

    api_key = ApiKey.objects.get()
    shown = [str(message) for message in response.context["messages"]]
    raw_key = next(word for text in shown for word in text.split() if word.startswith("shr_"))
    assert ApiKey.authenticate(raw_key) == api_key


def test_staff_revoke_tokens_in_the_admin(admin_client, token):
    api_key = ApiKey.objects.get()

    admin_client.post(
        "/admin/shortener/apikey/", {"action": "revoke_keys", "_selected_action": [api_key.pk]}, follow=True
    )

    api_key.refresh_from_db()
    assert api_key.is_revoked
