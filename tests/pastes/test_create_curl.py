"""curl-friendly creation (issue 23): the text as the body or a multipart form, the URL back as text."""

import subprocess

import pytest
from django.test import Client
from rest_framework import status

from pastes.models import Paste, PasteProfile

pytestmark = pytest.mark.django_db

CREATE = "/pastes/create"
TEXT = "line one\nligne deux é\n\ttabbed\n"


def keyed(key: str | None) -> Client:
    return Client(HTTP_AUTHORIZATION=key) if key else Client()


TEXT_TYPES = ["application/x-www-form-urlencoded", "text/plain", "application/octet-stream"]


@pytest.mark.parametrize("content_type", TEXT_TYPES)
def test_a_text_body_with_the_name_in_the_query_answers_the_url_as_text(owner_key, user, content_type):
    response = keyed(owner_key).post(
        f"{CREATE}?name=notes", TEXT.encode(), content_type=content_type, HTTP_ACCEPT="text/plain"
    )

    paste = Paste.objects.get()
    assert response.status_code == status.HTTP_200_OK
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.content.decode() == f"http://testserver/pastes/{paste.id}"  # exactly, with no newline
    assert (paste.owner, paste.name, paste.content) == (user, "notes", TEXT)


def test_the_other_fields_come_in_the_query(owner_key):
    query = "name=secret&expiration=1%20hour&exposure=unlisted&burn_after_read=true&syntax=bash"

    keyed(owner_key).post(f"{CREATE}?{query}", b"echo hi", content_type="text/plain", HTTP_ACCEPT="text/plain")

    paste = Paste.objects.get()
    assert (paste.expiration, paste.exposure, paste.burn_after_read, paste.syntax) == ("1H", "unlisted", True, "bash")


def test_without_accept_text_the_answer_is_the_paste_object(owner_key):
    response = keyed(owner_key).post(f"{CREATE}?name=notes", TEXT.encode(), content_type="text/plain")

    body = response.json()
    assert response.status_code == status.HTTP_200_OK
    assert (body["name"], body["content"], body["exposure"]) == ("notes", TEXT, "public")
    assert body["id"] == Paste.objects.get().id


def test_a_multipart_form_as_curl_F_sends_it(owner_key, user):
    response = keyed(owner_key).post(f"{CREATE}?name=from-form", {"content": TEXT}, HTTP_ACCEPT="text/plain")

    paste = Paste.objects.get()
    assert response.content.decode() == f"http://testserver/pastes/{paste.id}"
    assert (paste.name, paste.content) == ("from-form", TEXT)


def test_a_multipart_file_and_fields_in_the_form(owner_key):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("notes.txt", TEXT.encode(), content_type="text/plain")
    response = keyed(owner_key).post(CREATE, {"content": upload, "name": "uploaded", "exposure": "private"})

    assert response.status_code == status.HTTP_200_OK
    paste = Paste.objects.get()
    assert (paste.name, paste.content, paste.exposure) == ("uploaded", TEXT, "private")


def test_json_clients_are_unchanged(owner_key):
    response = keyed(owner_key).post(
        f"{CREATE}?name=ignored", {"name": "json", "content": "x"}, content_type="application/json"
    )

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["name"] == "json"


@pytest.mark.parametrize(
    ("path", "body", "code", "message"),
    [
        (f"{CREATE}?name=a", b"text", 400, "The name must be between 2 and 100 characters long"),
        (f"{CREATE}?name=notes", b"", 400, "content must not be empty."),
        (f"{CREATE}?name=notes", b"\xff\xfe not utf-8", 400, "The body must be UTF-8 text: it is the paste's content."),
        (f"{CREATE}?name=notes&expiration=3%20days", b"x", 400, "expiration must be one of: 10 minutes"),
        (f"{CREATE}?name=notes&burn_after_read=maybe", b"x", 400, "burn_after_read must be true or false."),
        (f"{CREATE}?name=notes&colour=red", b"x", 400, "Unknown field(s): colour."),
        (CREATE, b"name=ab&content=x", 415, "Unsupported media type"),
    ],
)
def test_bad_input_gets_bs_error_shape(owner_key, path, body, code, message):
    response = keyed(owner_key).post(path, body, content_type="text/plain", HTTP_ACCEPT="text/plain")

    assert response.status_code == code
    assert response.json()["code"] == code
    assert response.json()["message"].startswith(message)
    assert not Paste.objects.exists()


def test_too_large_a_body_is_413(owner_key, settings):
    settings.PASTES_MAX_BODY_BYTES = 1024

    response = keyed(owner_key).post(f"{CREATE}?name=big", b"x" * 1025, content_type="text/plain")

    assert response.status_code == status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    assert response.json() == {"code": 413, "message": "The request body is too large: the limit is 1024 bytes."}


def test_the_quota_holds(owner_key, user):
    PasteProfile.objects.create(user=user, max_paste_chars=3)

    response = keyed(owner_key).post(f"{CREATE}?name=notes", b"four", content_type="text/plain")

    assert response.status_code == status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    assert response.json()["message"].startswith("Paste quota exceeded")


@pytest.mark.parametrize("who", ["anonymous", "bad key"])
def test_a_key_is_needed(who):
    key = None if who == "anonymous" else "pst_not-a-key"

    response = keyed(key).post(f"{CREATE}?name=notes", b"x", content_type="text/plain", HTTP_ACCEPT="text/plain")

    assert response.status_code == status.HTTP_401_UNAUTHORIZED
    assert response.json()["code"] == 401
    assert not Paste.objects.exists()


def test_another_users_key_makes_a_paste_of_theirs(other_key, other_user):
    keyed(other_key).post(f"{CREATE}?name=theirs", b"x", content_type="text/plain")

    assert Paste.objects.get().owner == other_user


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "args",
    [
        ["--data-binary", "@-"],
        ["-H", "Content-Type: text/plain", "--data-binary", "@-"],
        ["-F", "content=<-"],
    ],
    ids=["data-binary", "text-plain", "form"],
)
def test_with_curl_itself(live_server, owner_key, user, args):
    url = f"{live_server.url}/pastes/create?name=from%20curl"
    command = ["curl", "-sS", "--fail-with-body", "-H", f"Authorization: {owner_key}", "-H", "Accept: text/plain"]

    result = subprocess.run([*command, *args, url], input=TEXT.encode(), capture_output=True, timeout=30, check=True)

    paste = Paste.objects.get()
    assert result.stdout.decode() == f"{live_server.url}/pastes/{paste.id}"
    assert (paste.name, paste.content) == ("from curl", TEXT)
