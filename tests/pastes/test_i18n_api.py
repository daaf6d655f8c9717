"""B's JSON API in every language (issue 48): IdefaSoft's clients match its messages word for word, so
an answer is the same bytes whatever Accept-Language says, errors included."""

import re

import pytest
from rest_framework.test import APIClient

from pastes.models import Comment
from tests.pastes.factories import PasteFactory, issue_key

pytestmark = pytest.mark.django_db

LANGUAGES = ("fr", "de", "es")


@pytest.fixture
def keyed(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=issue_key(user))
    return client


@pytest.fixture
def talk(user):
    paste = PasteFactory(owner=user, name="talk", content="print(1)", discussion=True)
    Comment.objects.create(paste=paste, nickname="Ann", text="Nice")
    return paste


def requests(paste_id: str) -> list[tuple[str, str, dict]]:
    """(method, path, body) of every JSON route, each with an answer that has words in it."""
    unknown = "AAAAAAAAAAAA"
    return [
        ("get", "/pastes/", {}),  # the API's index, for a client that asks for JSON
        ("post", "/pastes/", {}),  # 405, DRF's own message
        ("post", "/pastes/create", {}),  # a missing field
        ("post", "/pastes/create", {"name": "x", "content": "y", "expiration": "forever"}),
        ("post", "/pastes/create", {"name": "x", "content": "y", "surprise": 1}),
        ("get", f"/pastes/paste/@{paste_id}", {}),
        ("get", f"/pastes/paste/@{unknown}", {}),
        ("get", f"/pastes/paste/@{paste_id}/raw", {}),
        ("get", f"/pastes/paste/@{paste_id}/comments", {}),
        ("post", f"/pastes/paste/@{paste_id}/comments", {"text": ""}),
        ("post", f"/pastes/paste/@{paste_id}/comments", {"text": "x" * 10_001}),
        ("get", f"/pastes/paste/@{paste_id}/comments/99999", {}),
        ("delete", f"/pastes/paste/@{paste_id}/comments/abc", {}),
        ("get", f"/pastes/paste/@{paste_id}/files/9/raw", {}),
        ("get", f"/pastes/paste/@{paste_id}/revisions", {}),
        ("get", f"/pastes/paste/@{paste_id}/revisions/99", {}),
        ("get", f"/pastes/paste/@{paste_id}/attachments", {}),
        ("get", f"/pastes/paste/@{paste_id}/attachments/nope", {}),
        ("post", f"/pastes/paste/@{paste_id}/attachments", {}),
        ("patch", f"/pastes/edit/{paste_id}", {"id": "other", "name": "z"}),
        ("patch", f"/pastes/edit/{paste_id}", {"id": paste_id, "exposure": "secret"}),
        ("patch", f"/pastes/edit/{unknown}", {"id": unknown}),
        ("delete", f"/pastes/delete/{unknown}", {}),
        ("get", "/pastes/accounts/@alice", {}),
        ("get", "/pastes/accounts/@alice?page=abc", {}),
        ("get", "/pastes/accounts/@nobody", {}),
        ("get", "/pastes/paste/nothing-here", {}),  # no such route: B's 404 in its shape
    ]


def answer(client: APIClient, method: str, path: str, body: dict, language: str):
    headers = {"HTTP_ACCEPT_LANGUAGE": language, "HTTP_ACCEPT": "application/json"}
    response = getattr(client, method)(path, body, format="json", **headers) if body else None
    if response is None:
        response = getattr(client, method)(path, **headers)
    # A stranger's read counts a view: the only byte that may differ from one fetch to the next.
    return response.status_code, response["Content-Type"], re.sub(rb'"views":\d+', b'"views":N', response.content)


@pytest.mark.parametrize("who", ["keyed", "anonymous"])
def test_every_json_answer_is_the_same_bytes_in_every_language(request, talk, who):
    client = request.getfixturevalue("keyed") if who == "keyed" else APIClient()

    for method, path, body in requests(talk.id):
        english = answer(client, method, path, body, "en")
        for language in LANGUAGES:
            assert answer(client, method, path, body, language) == english, (method, path, language)


def test_the_answers_are_english_not_only_equal(keyed, talk):
    status, _type, content = answer(keyed, "post", "/pastes/create", {"name": "Notes"}, "fr")
    assert status == 400 and content == b'{"code":400,"message":"content is required."}'

    status, _type, content = answer(keyed, "post", "/pastes/", {}, "de")
    assert status == 405 and content == b'{"code":405,"message":"Method \\"POST\\" not allowed."}'
