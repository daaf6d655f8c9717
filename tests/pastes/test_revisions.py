"""Revisions (issue 47): every edit of a paste's files keeps the version before it."""

import pytest
from rest_framework import status

from pastes.models import Paste, PasteRevision
from tests.pastes.asserts import assert_pastes_error, quota_exceeded
from tests.pastes.factories import PasteFactory, PasteProfileFactory

pytestmark = pytest.mark.django_db

NOT_FOUND = "Paste not found (it may have expired, been burned after reading, or never existed)."
NO_REVISION = "Revision not found: GET /paste/@{id}/revisions lists this paste's revisions."


def create(client, **body) -> str:
    response = client.post("/pastes/create", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()["id"]


def edit(client, paste_id: str, **body):
    return client.patch(f"/pastes/edit/{paste_id}", {"id": paste_id, **body}, format="json")


@pytest.fixture
def edited(owner_client) -> str:
    """A paste created with two files, then edited twice: two revisions."""
    paste_id = create(
        owner_client,
        name="history",
        files=[{"filename": "a.py", "content": "one\n"}, {"filename": "b.txt", "content": "bee\n"}],
    )
    assert edit(owner_client, paste_id, content="two\n").status_code == 200
    files = [{"filename": "a.py", "content": "two\n"}, {"filename": "c.md", "content": "sea\n"}]
    assert edit(owner_client, paste_id, files=files, name="history 2").status_code == 200
    return paste_id


@pytest.mark.parametrize("who", ["owner", "other", "anonymous"])
def test_everyone_who_reads_the_paste_lists_its_revisions(clients, edited, who):
    response = clients[who].get(f"/pastes/paste/@{edited}/revisions")

    assert response.status_code == 200
    rows = response.json()
    assert [(row["number"], row["size"], row["files"], row["removed"]) for row in rows] == [
        (1, 8, ["a.py"], False),
        (2, 8, ["b.txt", "c.md"], False),
    ]
    assert rows[0]["created_at"] <= rows[1]["created_at"]
    assert Paste.objects.get().views == 0  # reading the history counts no view


@pytest.mark.parametrize("who", ["owner", "other", "anonymous"])
def test_one_revision_is_a_paste_object_of_that_version(clients, edited, who):
    body = clients[who].get(f"/pastes/paste/@{edited}/revisions/1").json()

    assert body["id"] == edited
    assert body["name"] == "history"
    assert body["content"] == "one\n"
    assert body["files"] == [
        {"filename": "a.py", "content": "one\n", "syntax": "python"},
        {"filename": "b.txt", "content": "bee\n", "syntax": "text"},
    ]


def test_the_paste_itself_is_the_newest_version(anon_client, edited):
    body = anon_client.get(f"/pastes/paste/@{edited}").json()

    assert body["name"] == "history 2"
    assert [file["filename"] for file in body["files"]] == ["a.py", "c.md"]


def test_settings_only_edits_keep_no_revision(owner_client, paste):
    edit(owner_client, paste.id, exposure="unlisted", name="renamed")

    assert owner_client.get(f"/pastes/paste/@{paste.id}/revisions").json() == []


def test_unknown_revisions_and_pastes_are_404(anon_client, edited):
    assert_pastes_error(anon_client.get(f"/pastes/paste/@{edited}/revisions/3"), 404, NO_REVISION)
    assert_pastes_error(anon_client.get(f"/pastes/paste/@{edited}/revisions/0"), 404, NO_REVISION)
    huge = anon_client.get(f"/pastes/paste/@{edited}/revisions/99999999999999999999")
    assert_pastes_error(huge, 404, NO_REVISION)
    assert_pastes_error(anon_client.get("/pastes/paste/@AAAAAAAAAAAA/revisions"), 404, NOT_FOUND)
    assert_pastes_error(anon_client.get("/pastes/paste/@nul%00/revisions"), 404, NOT_FOUND)
    assert anon_client.get(f"/pastes/paste/@{edited}/revisions/x").status_code == 404


@pytest.mark.parametrize("who", ["other", "anonymous"])
def test_a_private_pastes_revisions_are_404_to_others(clients, owner_client, who):
    paste_id = create(owner_client, name="mine", content="a", exposure="private")
    edit(owner_client, paste_id, content="b")

    assert_pastes_error(clients[who].get(f"/pastes/paste/@{paste_id}/revisions"), 404, NOT_FOUND)
    assert_pastes_error(clients[who].get(f"/pastes/paste/@{paste_id}/revisions/1"), 404, NOT_FOUND)
    assert owner_client.get(f"/pastes/paste/@{paste_id}/revisions/1").json()["content"] == "a"


def test_a_password_protects_the_revisions_too(anon_client, owner_client):
    paste_id = create(owner_client, name="locked", content="a", password="sesame")
    edit(owner_client, paste_id, content="b")
    url = f"/pastes/paste/@{paste_id}/revisions/1"

    missing = anon_client.get(url)
    wrong = anon_client.get(url, HTTP_X_PASTE_PASSWORD="nope")
    right = anon_client.get(url, HTTP_X_PASTE_PASSWORD="sesame")

    assert_pastes_error(missing, 401, "This paste is protected by a password: send it in the X-Paste-Password header.")
    assert_pastes_error(wrong, 403, "Wrong password for this paste.")
    assert right.json()["content"] == "a"


def test_burn_after_read_pastes_keep_no_revisions(owner_client):
    paste_id = create(owner_client, name="burns", content="a", burn_after_read=True)

    edit(owner_client, paste_id, content="b")

    assert not PasteRevision.objects.exists()
    assert owner_client.get(f"/pastes/paste/@{paste_id}/revisions").json() == []


def test_making_a_paste_burn_after_read_drops_its_revisions(owner_client, paste):
    edit(owner_client, paste.id, content="second")

    edit(owner_client, paste.id, burn_after_read=True, content="third")

    assert not PasteRevision.objects.exists()


def test_the_owner_removes_a_revisions_content_which_stays_listed(owner_client, anon_client, edited):
    response = owner_client.delete(f"/pastes/paste/@{edited}/revisions/1")

    assert response.status_code == status.HTTP_204_NO_CONTENT
    rows = anon_client.get(f"/pastes/paste/@{edited}/revisions").json()
    assert [(row["number"], row["removed"]) for row in rows] == [(1, True), (2, False)]
    gone = anon_client.get(f"/pastes/paste/@{edited}/revisions/1")
    assert_pastes_error(gone, 410, "The owner removed this revision's content; it stays listed as removed.")
    assert PasteRevision.objects.get(number=1).files is None


def test_others_cannot_remove_a_revision(other_client, anon_client, edited):
    assert_pastes_error(
        other_client.delete(f"/pastes/paste/@{edited}/revisions/1"),
        403,
        "Only the owner of this paste may change or delete it.",
    )
    assert_pastes_error(
        anon_client.delete(f"/pastes/paste/@{edited}/revisions/1"),
        401,
        "An API key is required: send it as the Authorization header.",
    )
    assert not PasteRevision.objects.filter(files__isnull=True).exists()


def test_removing_an_unknown_revision_is_404(owner_client, edited):
    assert_pastes_error(owner_client.delete(f"/pastes/paste/@{edited}/revisions/7"), 404, NO_REVISION)


def test_revisions_count_against_the_quota_until_removed(owner_client, user):
    PasteProfileFactory(user=user, max_paste_chars=10)
    paste_id = create(owner_client, name="qq", content="x" * 5)
    assert edit(owner_client, paste_id, content="y" * 5).status_code == 200  # 5 + revision 5 = 10

    refused = edit(owner_client, paste_id, content="z" * 5)

    assert_pastes_error(refused, 413, quota_exceeded(limit=10, needed=15))
    owner_client.delete(f"/pastes/paste/@{paste_id}/revisions/1")
    assert edit(owner_client, paste_id, content="z" * 5).status_code == 200
    assert Paste.objects.get().content == "z" * 5


def test_deleting_the_paste_deletes_its_revisions(owner_client, edited):
    owner_client.delete(f"/pastes/delete/{edited}")

    assert not PasteRevision.objects.exists()


def test_a_revision_of_a_one_file_paste_keeps_its_made_up_filename(owner_client, user):
    paste = PasteFactory(owner=user, name="Old one", content="before", syntax="python")

    edit(owner_client, paste.id, content="after")

    body = owner_client.get(f"/pastes/paste/@{paste.id}/revisions/1").json()
    assert body["files"] == [{"filename": "old-one.py", "content": "before", "syntax": "python"}]
    paste.refresh_from_db()
    assert paste.filename == ""  # still made from the name


def test_a_read_only_key_reads_revisions_but_cannot_remove_one(user, edited):
    from rest_framework.test import APIClient

    from common.permissions import READ_ONLY_KEY
    from pastes.models import ApiKey

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=ApiKey.issue(user=user, scope="read")[1])

    assert client.get(f"/pastes/paste/@{edited}/revisions").status_code == 200
    assert_pastes_error(client.delete(f"/pastes/paste/@{edited}/revisions/1"), 403, READ_ONLY_KEY)
    assert not PasteRevision.objects.filter(files__isnull=True).exists()


def test_malformed_json_on_edit_with_files_is_400_and_changes_nothing(owner_client, edited):
    response = owner_client.generic(
        "PATCH", f"/pastes/edit/{edited}", '{"id": "' + edited + '", "files": [', content_type="application/json"
    )

    assert response.status_code == 400
    assert response.json()["code"] == 400
    assert PasteRevision.objects.count() == 2
