"""Pastes in the browser (issue 23, item 2): new, list, edit, delete, fork, download; same rules as the API."""

import pytest
from django.test import Client
from rest_framework import status

from pastes.models import Paste, PasteProfile
from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db

CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36"
CODE = "import os\r\n\r\n\r\ndef cwd():\r\n    return os.getcwd()\r\n"
FORM = {"name": "Greeting", "content": CODE, "syntax": "", "expiration": "Never"}
FORM |= {"exposure": "public"}


def signed_in(user) -> Client:
    client = Client(HTTP_USER_AGENT=CHROME, enforce_csrf_checks=True)
    client.force_login(user)
    return client


def csrf(client: Client, path: str) -> str:
    client.get(path)
    return client.cookies["csrftoken"].value


def post(client: Client, path: str, data: dict | None = None, form_path: str | None = None):
    token = csrf(client, form_path or path)
    return client.post(path, {**(data or {}), "csrfmiddlewaretoken": token})


@pytest.fixture
def owner(user) -> Client:
    return signed_in(user)


@pytest.fixture
def other(other_user) -> Client:
    return signed_in(other_user)


@pytest.fixture
def anonymous() -> Client:
    return Client(HTTP_USER_AGENT=CHROME, enforce_csrf_checks=True)


# --- New -----------------------------------------------------------------------------------------


def test_the_new_paste_form_has_every_field(owner):
    response = owner.get("/pastes/new")

    body = response.content.decode()
    assert response.status_code == status.HTTP_200_OK
    for field in ('name="name"', "<textarea", 'name="syntax"', 'name="expiration"', 'name="exposure"'):
        assert field in body
    assert 'name="burn_after_read"' in body
    assert 'name="csrfmiddlewaretoken"' in body
    assert '<option value="python">Python</option>' in body


@pytest.mark.parametrize("path", ["/pastes/new", "/pastes/AAAAAAAAAAAA/edit", "/pastes/AAAAAAAAAAAA/delete"])
def test_a_stranger_is_sent_to_sign_in_and_back(anonymous, path):
    response = anonymous.get(path)

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == f"/accounts/login/?next={path}"


def test_a_stranger_cannot_post_a_paste(anonymous):
    response = anonymous.post("/pastes/new", FORM)

    assert response.status_code in (status.HTTP_302_FOUND, status.HTTP_403_FORBIDDEN)
    assert not Paste.objects.exists()


def test_creating_a_paste_in_the_browser(owner, user):
    response = post(owner, "/pastes/new", FORM)

    paste = Paste.objects.get()
    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == f"/pastes/{paste.id}"
    assert (paste.owner, paste.name, paste.exposure, paste.burn_after_read) == (user, "Greeting", "public", False)
    assert paste.content == CODE.replace("\r\n", "\n")  # the browser's CRLF line breaks are the text's own again
    assert paste.syntax == "python"  # detected, as none was chosen
    assert paste.expires_at is None
    page = owner.get(response["Location"]).content.decode()
    assert "Paste created." in page


def test_a_chosen_syntax_expiry_exposure_and_burn_are_kept(owner):
    data = FORM | {"syntax": "bash", "expiration": "1 hour", "exposure": "private", "burn_after_read": "on"}

    post(owner, "/pastes/new", data)

    paste = Paste.objects.get()
    assert (paste.syntax, paste.expiration, paste.exposure, paste.burn_after_read) == ("bash", "1H", "private", True)
    assert paste.expires_at is not None


def test_the_form_refuses_without_csrf(owner):
    response = owner.post("/pastes/new", FORM)

    assert response.status_code == status.HTTP_403_FORBIDDEN
    assert not Paste.objects.exists()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"name": "a"}, "The name must be between 2 and 100 characters long"),
        ({"content": ""}, "content must not be empty."),
        ({"content": "a\x00b"}, "Null characters are not allowed."),
        ({"expiration": "3 days"}, "Select a valid choice."),
        ({"syntax": "klingon"}, "Select a valid choice."),
    ],
)
def test_bad_input_is_shown_on_the_form_and_nothing_is_created(owner, changes, message):
    response = post(owner, "/pastes/new", FORM | changes)

    assert response.status_code == status.HTTP_400_BAD_REQUEST
    assert message in response.content.decode()
    assert 'role="alert"' in response.content.decode()
    assert not Paste.objects.exists()


def test_the_quota_is_the_apis_and_is_shown_on_the_form(owner, user):
    PasteProfile.objects.create(user=user, max_paste_chars=10)

    response = post(owner, "/pastes/new", FORM)

    assert response.status_code == status.HTTP_400_BAD_REQUEST
    assert "Paste quota exceeded: your pastes may hold at most 10 characters in total" in response.content.decode()
    assert not Paste.objects.exists()


def test_the_body_limit_is_the_apis(owner, settings):
    settings.PASTES_MAX_BODY_BYTES = 1024

    response = post(owner, "/pastes/new", FORM | {"content": "é" * 600})

    assert response.status_code == status.HTTP_400_BAD_REQUEST
    assert "The content is too large: the limit is 1024 bytes." in response.content.decode()
    assert not Paste.objects.exists()


# --- The list --------------------------------------------------------------------------------------


def test_your_pastes_are_listed_newest_first_and_paged(owner, user, other_user):
    from datetime import timedelta

    from django.utils import timezone

    now = timezone.now()
    for number in range(25):
        PasteFactory(owner=user, name=f"Mine {number:02}", created_at=now - timedelta(minutes=number))
    PasteFactory(owner=other_user, name="Not mine")

    first = owner.get("/pastes/", HTTP_ACCEPT="text/html").content.decode()
    second = owner.get("/pastes/?page=2", HTTP_ACCEPT="text/html").content.decode()

    assert "25 pastes, newest first." in first
    assert first.index("Mine 00") < first.index("Mine 19")
    assert "Mine 20" not in first and "Not mine" not in first
    assert "Page 1 of 2" in first
    assert all(f"Mine {number}" in second for number in range(20, 25))
    assert "Mine 19" not in second


def test_the_list_is_empty_for_a_new_user(owner):
    body = owner.get("/pastes/", HTTP_ACCEPT="text/html").content.decode()

    assert "You have no pastes yet." in body


# --- Edit ------------------------------------------------------------------------------------------


@pytest.fixture
def mine(user) -> Paste:
    return PasteFactory(owner=user, name="Mine", content="one", syntax="text")


def test_the_owner_edits_their_paste(owner, mine):
    form = owner.get(f"/pastes/{mine.id}/edit").content.decode()
    assert 'value="Mine"' in form and ">\none</textarea>" in form

    data = {"name": "Renamed", "content": "two\r\n", "syntax": "text", "expiration": "", "exposure": "unlisted"}
    response = post(owner, f"/pastes/{mine.id}/edit", data)

    mine.refresh_from_db()
    assert response["Location"] == f"/pastes/{mine.id}"
    assert (mine.name, mine.content, mine.exposure, mine.expires_at) == ("Renamed", "two\n", "unlisted", None)


def test_an_edit_can_set_a_new_expiry(owner, mine):
    data = {"name": "Mine", "content": "one", "syntax": "", "expiration": "1 day", "exposure": "public"}

    post(owner, f"/pastes/{mine.id}/edit", data)

    mine.refresh_from_db()
    assert mine.expiration == "1D"


def test_bad_edits_are_shown_and_change_nothing(owner, mine):
    data = {"name": "x", "content": "one", "syntax": "", "expiration": "", "exposure": "public"}

    response = post(owner, f"/pastes/{mine.id}/edit", data)

    assert response.status_code == status.HTTP_400_BAD_REQUEST
    assert "The name must be between 2 and 100 characters long" in response.content.decode()
    mine.refresh_from_db()
    assert mine.name == "Mine"


def test_someone_else_cannot_edit_or_delete(other, mine):
    assert other.get(f"/pastes/{mine.id}/edit").status_code == status.HTTP_403_FORBIDDEN
    assert other.get(f"/pastes/{mine.id}/delete").status_code == status.HTTP_403_FORBIDDEN
    data = {"name": "Stolen", "content": "x", "expiration": "", "exposure": "public"}
    response = post(other, f"/pastes/{mine.id}/edit", data, form_path="/pastes/new")
    assert response.status_code == status.HTTP_403_FORBIDDEN
    response = post(other, f"/pastes/{mine.id}/delete", form_path="/pastes/new")
    assert response.status_code == status.HTTP_403_FORBIDDEN
    mine.refresh_from_db()
    assert mine.name == "Mine"


def test_a_private_paste_of_someone_else_does_not_exist_to_the_pages(other, user):
    private = PasteFactory(owner=user, exposure=Paste.Exposure.PRIVATE)

    for path in ("edit", "delete", "fork", "download"):
        assert other.get(f"/pastes/{private.id}/{path}").status_code == status.HTTP_404_NOT_FOUND


def test_owner_actions_show_on_the_page_for_the_owner_only(owner, other, mine):
    own = owner.get(f"/pastes/{mine.id}").content.decode()
    theirs = other.get(f"/pastes/{mine.id}").content.decode()

    assert f'href="/pastes/{mine.id}/edit"' in own and f'href="/pastes/{mine.id}/delete"' in own
    assert f'href="/pastes/{mine.id}/edit"' not in theirs and f'href="/pastes/{mine.id}/delete"' not in theirs
    assert f'href="/pastes/{mine.id}/fork"' in theirs and f'href="/pastes/{mine.id}/download"' in theirs


# --- Delete ----------------------------------------------------------------------------------------


def test_delete_asks_first_and_the_post_deletes(owner, mine):
    confirm = owner.get(f"/pastes/{mine.id}/delete")

    assert confirm.status_code == status.HTTP_200_OK
    assert "Delete “Mine”?" in confirm.content.decode()
    assert Paste.objects.filter(pk=mine.pk).exists()  # the GET deletes nothing

    response = post(owner, f"/pastes/{mine.id}/delete")

    assert response["Location"] == "/pastes/"
    assert not Paste.objects.filter(pk=mine.pk).exists()


def test_delete_needs_csrf(owner, mine):
    assert owner.post(f"/pastes/{mine.id}/delete").status_code == status.HTTP_403_FORBIDDEN
    assert Paste.objects.filter(pk=mine.pk).exists()


# --- Fork ------------------------------------------------------------------------------------------


def test_forking_someone_elses_paste_makes_a_new_one_of_yours(other, other_user, mine):
    form = other.get(f"/pastes/{mine.id}/fork").content.decode()

    assert 'value="Fork of Mine"' in form and ">\none</textarea>" in form
    post(other, "/pastes/new", {**FORM, "name": "Fork of Mine", "content": "one, and more"}, form_path="/pastes/new")

    fork = Paste.objects.get(owner=other_user)
    assert (fork.name, fork.content) == ("Fork of Mine", "one, and more")
    mine.refresh_from_db()
    assert (mine.content, mine.views) == ("one", 1)  # the original is untouched; the fork read it once


def test_a_stranger_is_sent_to_sign_in_before_forking(anonymous, mine):
    response = anonymous.get(f"/pastes/{mine.id}/fork")

    assert response["Location"] == f"/accounts/login/?next=/pastes/{mine.id}/fork"


def test_someone_elses_burn_after_read_paste_cannot_be_forked_or_downloaded(other, user):
    burning = PasteFactory(owner=user, burn_after_read=True)

    assert other.get(f"/pastes/{burning.id}/fork").status_code == status.HTTP_403_FORBIDDEN
    assert other.get(f"/pastes/{burning.id}/download").status_code == status.HTTP_403_FORBIDDEN
    assert Paste.objects.filter(pk=burning.pk).exists()


# --- Download --------------------------------------------------------------------------------------


def test_download_is_an_attachment_named_after_the_paste(anonymous, user):
    paste = PasteFactory(owner=user, name="My script!", content="import os\n", syntax="python")

    response = anonymous.get(f"/pastes/{paste.id}/download")

    assert response.status_code == status.HTTP_200_OK
    assert response["Content-Disposition"] == 'attachment; filename="my-script.py"'
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.content == b"import os\n"
    paste.refresh_from_db()
    assert paste.views == 1


def test_a_download_without_a_known_language_is_a_text_file(anonymous, user):
    paste = PasteFactory(owner=user, name="notes", content="just words", syntax="text")

    response = anonymous.get(f"/pastes/{paste.id}/download")

    assert response["Content-Disposition"] == 'attachment; filename="notes.txt"'
