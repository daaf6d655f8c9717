"""Several files and revisions in the browser (issue 47): the form, the paste page, the history and its diff."""

import pytest
from django.test import Client

from pastes import services
from pastes.models import Paste, PasteFile, PasteRevision
from tests.pastes.test_pages import FORM, post, signed_in

pytestmark = pytest.mark.django_db

THREE = [
    {"filename": "main.py", "content": "print('hi')\n"},
    {"filename": "README.md", "content": "# Title\n"},
    {"filename": "notes.txt", "content": "plain\n"},
]


@pytest.fixture
def owner(user) -> Client:
    return signed_in(user)


@pytest.fixture
def other(other_user) -> Client:
    return signed_in(other_user)


@pytest.fixture
def anonymous() -> Client:
    return Client(enforce_csrf_checks=True)


@pytest.fixture
def three(user) -> Paste:
    return services.paste_create(owner=user, name="Three files", files=[dict(file) for file in THREE])


def test_the_form_makes_a_three_file_paste(owner):
    data = FORM | {"filename": "main.py", "content": "print(1)\r\n", "filename_2": "b.md", "content_2": "# B"}
    data |= {"filename_3": "c.txt", "content_3": "see"}

    response = post(owner, "/pastes/new", data)

    paste = Paste.objects.get()
    assert response.status_code == 302
    assert (paste.file_count, paste.filename, paste.content, paste.syntax) == (3, "main.py", "print(1)\n", "python")
    assert list(PasteFile.objects.values_list("filename", "content")) == [("b.md", "# B"), ("c.txt", "see")]


def test_add_another_file_posts_back_the_form_with_one_slot_more(owner):
    response = post(owner, "/pastes/new", FORM | {"add_file": "1", "filename_2": "kept.txt", "content_2": "kept"})

    assert response.status_code == 200
    page = response.content.decode()
    assert 'name="content_3"' in page and 'value="kept.txt"' in page
    assert not Paste.objects.exists()


def test_a_bad_filename_on_the_form_is_shown_and_nothing_is_written(owner):
    response = post(owner, "/pastes/new", FORM | {"filename": "../etc/passwd"})

    assert response.status_code == 400
    assert "files[0].filename must not contain a path separator" in response.content.decode()
    assert not Paste.objects.exists()


@pytest.mark.parametrize("who", ["owner", "other", "anonymous"])
def test_the_page_shows_each_file_with_its_own_links(three, request, who):
    response = request.getfixturevalue(who).get(f"/pastes/{three.id}")

    page = response.content.decode()
    assert response.status_code == 200
    for number, file in enumerate(THREE, start=1):
        assert f">{file['filename']}</h2>" in page
        assert f"/pastes/paste/@{three.id}/files/{number}/raw" in page
        assert f"/pastes/{three.id}/files/{number}/download" in page
    assert f"/pastes/{three.id}/download.zip" in page
    assert 'id="F2L-1"' in page  # each file's line anchors are its own


def test_editing_on_the_form_keeps_a_revision_and_removes_emptied_files(owner, three):
    form = owner.get(f"/pastes/{three.id}/edit").content.decode()
    assert 'value="README.md"' in form and 'name="content_3"' in form
    data = FORM | {"name": "Three files", "filename": "main.py", "content": "print('bye')\n"}
    data |= {"filename_2": "README.md", "content_2": "# Title\n", "filename_3": "", "content_3": ""}

    response = post(owner, f"/pastes/{three.id}/edit", data)

    assert response.status_code == 302
    three.refresh_from_db()
    assert (three.file_count, three.content) == (2, "print('bye')\n")
    revision = PasteRevision.objects.get()
    assert revision.changed == ["main.py", "notes.txt"]


def test_the_history_shows_a_unified_diff_between_any_two_versions(anonymous, user, three):
    three = services.paste_update(paste=three, changes={"content": "print('bye')\n"})
    services.paste_update(paste=three, changes={"content": "print('again')\n"})

    default = anonymous.get(f"/pastes/{three.id}/history")
    chosen = anonymous.get(f"/pastes/{three.id}/history?from=1&to=2")

    assert default.status_code == 200
    page = default.content.decode()
    assert "--- a/main.py" in page and "+++ b/main.py" in page
    assert "-print(&#x27;bye&#x27;)" in page and "+print(&#x27;again&#x27;)" in page
    chosen_page = chosen.content.decode()
    assert "-print(&#x27;hi&#x27;)" in chosen_page and "+print(&#x27;bye&#x27;)" in chosen_page
    assert anonymous.get(f"/pastes/{three.id}/history?from=9").status_code == 400
    assert anonymous.get(f"/pastes/{three.id}/history?from=x&to=current").status_code == 400


def test_only_the_owner_removes_a_revision_on_the_history_page(owner, other, three):
    services.paste_update(paste=three, changes={"content": "changed"})

    refused = post(other, f"/pastes/{three.id}/history", {"remove": "1"}, form_path="/pastes/new")
    removed = post(owner, f"/pastes/{three.id}/history", {"remove": "1"})
    unknown = post(owner, f"/pastes/{three.id}/history", {"remove": "x"})

    assert refused.status_code == 403
    assert removed.status_code == 302
    assert unknown.status_code == 404
    assert PasteRevision.objects.get().removed
    assert "removed" in owner.get(f"/pastes/{three.id}/history").content.decode()


def test_a_private_pastes_history_is_404_to_others(other, anonymous, user):
    paste = services.paste_create(owner=user, name="mine", content="a", exposure=Paste.Exposure.PRIVATE)

    assert other.get(f"/pastes/{paste.id}/history").status_code == 404
    assert anonymous.get(f"/pastes/{paste.id}/history").status_code == 404
    assert anonymous.get(f"/pastes/{paste.id}/download.zip").status_code == 404


def test_someone_elses_burn_after_read_paste_has_no_zip_or_history(anonymous, user):
    paste = services.paste_create(owner=user, name="burns", files=[dict(file) for file in THREE], burn_after_read=True)

    assert anonymous.get(f"/pastes/{paste.id}/download.zip").status_code == 403
    assert anonymous.get(f"/pastes/{paste.id}/history").status_code == 403
    assert Paste.objects.filter(pk=paste.pk).exists()
