"""Several files per paste (issue 47): `files` on create, edit and every read; bad files refused whole."""

import io
import zipfile

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework import status

from pastes import services
from pastes.errors import PayloadTooLarge
from pastes.files import MAX_FILES
from pastes.models import Paste, PasteFile
from tests.pastes.asserts import assert_pastes_error, quota_exceeded
from tests.pastes.e2e import encrypt
from tests.pastes.factories import PasteFactory, PasteProfileFactory

pytestmark = pytest.mark.django_db

THREE = [
    {"filename": "main.py", "content": "print('hi')\n"},
    {"filename": "README.md", "content": "# Title\n"},
    {"filename": "notes", "content": "plain words\n", "syntax": "text"},
]


def create(client, **body):
    return client.post("/pastes/create", body, format="json")


def edit(client, paste_id: str, **body):
    return client.patch(f"/pastes/edit/{paste_id}", {"id": paste_id, **body}, format="json")


def test_create_with_three_files_stores_and_returns_them_with_guessed_syntaxes(owner_client, user):
    response = create(owner_client, name="three", files=THREE)

    assert response.status_code == status.HTTP_200_OK
    body = response.json()
    assert body["files"] == [
        {"filename": "main.py", "content": "print('hi')\n", "syntax": "python"},
        {"filename": "README.md", "content": "# Title\n", "syntax": "markdown"},
        {"filename": "notes", "content": "plain words\n", "syntax": "text"},
    ]
    assert body["content"] == "print('hi')\n"  # the first file's, for IdefaSoft's clients
    paste = Paste.objects.get()
    assert (paste.content, paste.filename, paste.syntax, paste.file_count) == ("print('hi')\n", "main.py", "python", 3)
    assert list(PasteFile.objects.values_list("position", "filename")) == [(2, "README.md"), (3, "notes")]


@pytest.mark.parametrize("who", ["owner", "other", "anonymous"])
def test_every_reader_gets_every_file(clients, owner_client, who):
    paste_id = create(owner_client, name="three", files=THREE).json()["id"]

    body = clients[who].get(f"/pastes/paste/@{paste_id}").json()

    assert [file["filename"] for file in body["files"]] == ["main.py", "README.md", "notes"]
    assert body["content"] == "print('hi')\n"


def test_each_file_has_its_raw_text(anon_client, owner_client):
    paste_id = create(owner_client, name="three", files=THREE).json()["id"]

    second = anon_client.get(f"/pastes/paste/@{paste_id}/files/2/raw")
    missing = anon_client.get(f"/pastes/paste/@{paste_id}/files/4/raw")

    assert second.status_code == 200
    assert second["Content-Type"] == "text/plain; charset=utf-8"
    assert second.content.decode() == "# Title\n"
    assert_pastes_error(missing, 404, "This paste has 3 file(s): number 4 does not exist.")
    assert Paste.objects.get().views == 2  # each raw read counts, as /raw does


def test_a_one_file_paste_reads_as_before_in_one_query(anon_client, user):
    paste = PasteFactory(owner=user, name="Notes here", content="x = 1", syntax="python")

    with CaptureQueriesContext(connection) as queries:
        body = anon_client.get(f"/pastes/paste/@{paste.id}").json()

    assert body["content"] == "x = 1"
    assert body["files"] == [{"filename": "notes-here.py", "content": "x = 1", "syntax": "python"}]
    paste_queries = [query for query in queries if "pastes_" in query["sql"]]
    assert len(paste_queries) == 1, [query["sql"] for query in paste_queries]


def test_a_many_file_paste_reads_in_two_queries(anon_client, owner_client):
    paste_id = create(owner_client, name="three", files=THREE).json()["id"]

    with CaptureQueriesContext(connection) as queries:
        anon_client.get(f"/pastes/paste/@{paste_id}")

    assert len([query for query in queries if "pastes_" in query["sql"]]) == 2


def test_account_listing_fetches_the_files_of_its_page_in_one_query(anon_client, owner_client, user):
    for index in range(3):
        create(owner_client, name=f"paste {index}", files=THREE)

    with CaptureQueriesContext(connection) as queries:
        body = anon_client.get(f"/pastes/accounts/@{user.username}").json()

    assert [len(paste["files"]) for paste in body["pastes"]] == [3, 3, 3]
    assert len([query for query in queries if "pastes_pastefile" in query["sql"]]) == 1


def test_edit_files_replaces_every_file(owner_client):
    paste_id = create(owner_client, name="three", files=THREE).json()["id"]

    response = edit(owner_client, paste_id, files=[{"filename": "only.txt", "content": "one"}])

    assert response.status_code == 200
    assert response.json()["files"] == [{"filename": "only.txt", "content": "one", "syntax": "text"}]
    paste = Paste.objects.get()
    assert (paste.file_count, paste.content) == (1, "one")
    assert not PasteFile.objects.exists()


def test_edit_content_changes_only_the_first_file(owner_client):
    paste_id = create(owner_client, name="three", files=THREE).json()["id"]

    body = edit(owner_client, paste_id, content="print('bye')\n").json()

    assert [file["content"] for file in body["files"]] == ["print('bye')\n", "# Title\n", "plain words\n"]


def test_a_one_file_paste_can_grow_files(owner_client, paste):
    body = edit(owner_client, paste.id, files=[{"filename": "a.txt", "content": "A"}, *THREE[:1]]).json()

    assert [file["filename"] for file in body["files"]] == ["a.txt", "main.py"]
    assert Paste.objects.get().file_count == 2


def test_content_and_files_together_are_refused(owner_client):
    response = create(owner_client, name="both", content="x", files=THREE)

    assert_pastes_error(response, 400, "Send either content (one file) or files, not both.")
    assert not Paste.objects.exists()


def test_neither_content_nor_files_is_refused(owner_client):
    assert_pastes_error(create(owner_client, name="none"), 400, "content is required.")


BAD_FILES = [
    ("not a list", "files must be a list of objects {filename, content, syntax}."),
    ([], "files must hold at least one file."),
    (["text"], "files[0] must be an object {filename, content, syntax}."),
    ([{"filename": "a", "content": "x", "size": 1}], "files[0] has unknown field(s): size. Allowed fields: "
     "filename, content, syntax."),
    ([{"content": "x"}], "files[0].filename is required."),
    ([{"filename": "a"}], "files[0].content is required."),
    ([{"filename": 1, "content": "x"}], "files[0].filename must be a string."),
    ([{"filename": "a", "content": None}], "files[0].content must be a string."),
    ([{"filename": "a", "content": ""}], "files[0].content must not be empty."),
    ([{"filename": "a", "content": "x\x00"}], "files[0].content must not contain NUL characters."),
    ([{"filename": "", "content": "x"}], "files[0].filename must not be empty."),
    ([{"filename": "dir/a.py", "content": "x"}], "files[0].filename must not contain a path separator (/ or \\)."),
    ([{"filename": "..\\a.py", "content": "x"}], "files[0].filename must not contain a path separator (/ or \\)."),
    ([{"filename": "..", "content": "x"}], "files[0].filename must not contain '..'."),
    ([{"filename": "a..py", "content": "x"}], "files[0].filename must not contain '..'."),
    ([{"filename": "a\nb", "content": "x"}], "files[0].filename must not contain control characters."),
    ([{"filename": "a\u202eb", "content": "x"}], "files[0].filename must not contain control characters."),
    ([{"filename": " a", "content": "x"}], "files[0].filename must not start or end with whitespace."),
    ([{"filename": "a" * 256, "content": "x"}], "files[0].filename must be at most 255 characters long."),
    (
        [{"filename": "a", "content": "x"}, {"filename": "a", "content": "y"}],
        "files[1].filename 'a' is used twice: filenames must differ.",
    ),
    ([{"filename": "a", "content": "x", "syntax": "nosuch"}], "files[0].syntax: unknown syntax nosuch: use a "
     "Pygments language name such as python."),
    ([{"filename": "a", "content": "x"}] * 0 + [{"filename": f"f{n}", "content": "x"} for n in range(MAX_FILES + 1)],
     f"A paste holds at most {MAX_FILES} files."),
]  # fmt: skip


@pytest.mark.parametrize(("files", "message"), BAD_FILES)
def test_bad_files_are_400_and_write_nothing(owner_client, files, message):
    response = create(owner_client, name="bad", files=files)

    assert_pastes_error(response, 400, message)
    assert not Paste.objects.exists()
    assert not PasteFile.objects.exists()


@pytest.mark.parametrize(("files", "message"), BAD_FILES[:4])
def test_bad_files_on_edit_change_nothing(owner_client, files, message):
    paste_id = create(owner_client, name="three", files=THREE).json()["id"]

    assert_pastes_error(edit(owner_client, paste_id, files=files), 400, message)
    assert Paste.objects.get().file_count == 3
    assert PasteFile.objects.count() == 2


def test_oversize_files_are_413_and_write_nothing(owner_client, settings):
    settings.PASTES_MAX_BODY_BYTES = 2048
    files = [{"filename": "a", "content": "é" * 600}, {"filename": "b", "content": "x" * 900}]

    response = create(owner_client, name="big", files=files)

    assert_pastes_error(response, 413, "The request body is too large: the limit is 2048 bytes.")
    assert not Paste.objects.exists()


def test_files_over_the_byte_limit_are_refused_whatever_brought_them(settings, user):
    # The page's form posts files as form fields, which the JSON body limit does not see.
    settings.PASTES_MAX_BODY_BYTES = 1024
    files = [{"filename": "a", "content": "é" * 300, "syntax": ""}, {"filename": "b", "content": "x" * 500}]

    with pytest.raises(PayloadTooLarge, match="together they may hold at most 1024 bytes"):
        services.paste_create(owner=user, name="big", files=files)
    assert not Paste.objects.exists()


def test_the_quota_counts_every_file(owner_client, user):
    PasteProfileFactory(user=user, max_paste_chars=32)

    fits = create(owner_client, name="fits", files=THREE)  # 12 + 8 + 12 characters: exactly the quota
    refused = create(owner_client, name="one more", files=[{"filename": "a", "content": "x"}])

    assert fits.status_code == 200
    assert_pastes_error(refused, 413, quota_exceeded(limit=32, needed=33))
    assert Paste.objects.count() == 1


def test_burning_a_many_file_paste_returns_every_file_once(anon_client, owner_client):
    paste_id = create(owner_client, name="burns", files=THREE, burn_after_read=True).json()["id"]

    first = anon_client.get(f"/pastes/paste/@{paste_id}")
    second = anon_client.get(f"/pastes/paste/@{paste_id}")

    assert [file["filename"] for file in first.json()["files"]] == ["main.py", "README.md", "notes"]
    assert second.status_code == 404
    assert not Paste.objects.exists()
    assert not PasteFile.objects.exists()


def test_encrypted_files_need_every_content_and_filename_as_an_envelope(owner_client):
    sealed = [{"filename": encrypt(f"f{n}.py")[0], "content": encrypt("secret")[0]} for n in range(2)]
    plain_name = [sealed[0], {"filename": "clear.txt", "content": encrypt("secret")[0]}]

    accepted = create(owner_client, name="sealed", encrypted=True, files=sealed)
    refused = create(owner_client, name="leaky", encrypted=True, files=plain_name)

    assert accepted.status_code == 200
    assert [file["syntax"] for file in accepted.json()["files"]] == ["", ""]  # nothing guessed from ciphertext
    assert refused.status_code == 400
    assert Paste.objects.count() == 1


def test_the_zip_holds_every_file(client, owner_client):
    paste_id = create(owner_client, name="Three files", files=THREE).json()["id"]

    response = client.get(f"/pastes/{paste_id}/download.zip")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert 'filename="three-files.zip"' in response["Content-Disposition"]
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert archive.namelist() == ["main.py", "README.md", "notes"]
    assert archive.read("README.md") == b"# Title\n"
    assert archive.testzip() is None


def test_each_file_downloads_under_its_own_name(client, owner_client):
    paste_id = create(owner_client, name="three", files=THREE).json()["id"]

    response = client.get(f"/pastes/{paste_id}/files/2/download")
    missing = client.get(f"/pastes/{paste_id}/files/9/download")

    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="README.md"'
    assert response.content == b"# Title\n"
    assert missing.status_code == 404


def test_private_files_and_zip_are_404_to_others(client, owner_client, other_client):
    paste_id = create(owner_client, name="mine", files=THREE, exposure="private").json()["id"]

    assert other_client.get(f"/pastes/paste/@{paste_id}/files/2/raw").status_code == 404
    assert client.get(f"/pastes/{paste_id}/download.zip").status_code == 404
    assert client.get(f"/pastes/{paste_id}/files/1/download").status_code == 404
