"""Every failure under the pastes prefix is JSON {code, message}, never HTML and never a 500."""

import re

import pytest
from rest_framework import status

from pastes.errors import PasteNotFound, UserNotFound
from pastes.models import Paste
from tests.pastes.asserts import assert_pastes_error

pytestmark = [pytest.mark.django_db, pytest.mark.log_without_tracebacks]

CREATE = "/pastes/create"


def rate_limited(kind: str, limit: int) -> re.Pattern[str]:
    # The wait is DRF's estimate from the clock, so only its form is fixed.
    return re.compile(
        rf"Rate limit exceeded: at most {limit} {kind} requests per minute\. Expected available in \d+ seconds?\."
    )


def test_malformed_json_is_400(owner_client):
    response = owner_client.post(CREATE, '{"name": "ab",', content_type="application/json")

    assert_pastes_error(response, 400, "JSON parse error - unexpected end of data.")


def test_invalid_utf8_body_is_400(owner_client):
    response = owner_client.post(CREATE, b'{"name": "\xff\xfe"}', content_type="application/json")

    assert_pastes_error(response, 400, "JSON parse error - str is not valid UTF-8.")


@pytest.mark.parametrize("body", ["[]", '"text"', "42", "null"])
def test_body_that_is_not_an_object_is_400(owner_client, body):
    response = owner_client.post(CREATE, body, content_type="application/json")

    assert_pastes_error(response, 400, "The request body must be a JSON object.")


def test_empty_body_reports_the_missing_name(owner_client):
    response = owner_client.post(CREATE, "", content_type="application/json")

    assert_pastes_error(response, 400, "name is required.")


def test_form_encoded_body_is_415(owner_client):
    response = owner_client.post(CREATE, "name=ab&content=x", content_type="application/x-www-form-urlencoded")

    assert_pastes_error(
        response,
        415,
        'Unsupported media type "application/x-www-form-urlencoded" in request.'
        " Send the body as JSON with Content-Type: application/json."
        " Or send the text itself as the body, with the name in the query string (?name=...).",
    )


def test_json_with_charset_is_accepted(owner_client):
    response = owner_client.post(
        CREATE, '{"name": "ab", "content": "x"}', content_type="application/json; charset=utf-8"
    )

    assert response.status_code == status.HTTP_200_OK
    assert Paste.objects.get(pk=response.json()["id"]).content == "x"


def test_body_over_the_limit_is_413(owner_client, settings):
    settings.PASTES_MAX_BODY_BYTES = 2048

    response = owner_client.post(CREATE, {"name": "ab", "content": "x" * 5000}, format="json")

    assert_pastes_error(response, 413, "The request body is too large: the limit is 2048 bytes.")
    assert not Paste.objects.exists()


def test_absurd_body_is_413_by_default(owner_client, settings):
    body = '{"name": "ab", "content": "' + "x" * (settings.PASTES_MAX_BODY_BYTES + 1) + '"}'

    response = owner_client.post(CREATE, body, content_type="application/json")

    assert_pastes_error(response, 413, "The request body is too large: the limit is 16777216 bytes.")


def test_get_on_create_is_405(owner_client):
    response = owner_client.get(CREATE)

    assert_pastes_error(response, 405, 'Method "GET" not allowed.')


def test_post_on_a_paste_is_405(owner_client, paste):
    response = owner_client.post(f"/pastes/paste/@{paste.id}", {}, format="json")

    assert_pastes_error(response, 405, 'Method "POST" not allowed.')


def test_unknown_path_under_the_prefix_is_json_404(anon_client):
    response = anon_client.get("/pastes/nothing/here")

    assert_pastes_error(response, 404, "Not found.")


def test_html_accept_header_still_gets_json(anon_client, paste):
    response = anon_client.get(f"/pastes/paste/@{paste.id}", HTTP_ACCEPT="text/html")

    assert response.status_code == status.HTTP_200_OK
    assert response["Content-Type"] == "application/json"


def test_scheme_word_without_key_is_401(anon_client):
    response = anon_client.post(CREATE, {}, format="json", HTTP_AUTHORIZATION="Bearer ")

    assert_pastes_error(response, 401, "Invalid or revoked API key.")


def test_missing_key_401_names_the_header(anon_client):
    response = anon_client.delete("/pastes/delete/AAAAAAAAAAAA")

    assert_pastes_error(response, 401, "An API key is required: send it as the Authorization header.")
    assert response["WWW-Authenticate"] == "Bearer"


def test_anonymous_reads_over_the_limit_are_429(anon_client, paste, settings):
    settings.PASTES_READ_RATE_LIMIT = 2

    responses = [anon_client.get(f"/pastes/paste/@{paste.id}") for _ in range(3)]

    assert [r.status_code for r in responses] == [200, 200, 429]
    assert_pastes_error(responses[2], 429, rate_limited("read", 2))
    assert int(responses[2]["Retry-After"]) >= 1


def test_anonymous_read_limit_is_per_client_address(anon_client, paste, settings):
    settings.PASTES_READ_RATE_LIMIT = 1
    anon_client.get(f"/pastes/paste/@{paste.id}", REMOTE_ADDR="10.0.0.1")

    response = anon_client.get(f"/pastes/paste/@{paste.id}", REMOTE_ADDR="10.0.0.2")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["content"] == paste.content


def test_writes_over_the_limit_are_429_per_key(owner_client, other_client, settings):
    settings.PASTES_WRITE_RATE_LIMIT = 1
    owner_client.post(CREATE, {"name": "ab", "content": "x"}, format="json")

    limited = owner_client.post(CREATE, {"name": "cd", "content": "x"}, format="json")
    other = other_client.post(CREATE, {"name": "ef", "content": "x"}, format="json")

    assert_pastes_error(limited, 429, rate_limited("write", 1))
    assert other.status_code == status.HTTP_200_OK
    assert sorted(Paste.objects.values_list("name", flat=True)) == ["ab", "ef"]


def test_authenticated_reads_are_limited_per_key_not_address(owner_client, other_client, paste, settings):
    settings.PASTES_READ_RATE_LIMIT = 1
    owner_client.get(f"/pastes/paste/@{paste.id}")

    limited = owner_client.get(f"/pastes/paste/@{paste.id}")
    other = other_client.get(f"/pastes/paste/@{paste.id}")

    assert_pastes_error(limited, 429, rate_limited("read", 1))
    assert other.status_code == status.HTTP_200_OK
    assert other.json()["content"] == paste.content


def test_the_bare_prefix_redirects_to_the_json_index(anon_client):
    response = anon_client.get("/pastes", follow=True)

    assert response.redirect_chain == [("/pastes/", status.HTTP_301_MOVED_PERMANENTLY)]
    assert response.json()["docs"] == "http://testserver/api/docs/"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/pastes/paste/@%00AAAAAAAAAAA", PasteNotFound.message),
        ("/pastes/paste/@AAAA%00/raw", PasteNotFound.message),
        ("/pastes/accounts/@al%00ice", UserNotFound.message),
        ("/pastes/paste/@é", PasteNotFound.message),
    ],
)
def test_odd_characters_in_the_path_are_404(anon_client, path, message):
    response = anon_client.get(path)

    assert_pastes_error(response, 404, message)


def test_nul_in_an_edited_id_is_404(owner_client):
    response = owner_client.patch("/pastes/edit/AAAA%00", {"id": "AAAA\x00"}, format="json")

    assert_pastes_error(response, 404, PasteNotFound.message)
