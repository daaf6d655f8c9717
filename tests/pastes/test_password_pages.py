"""Password-protected and encrypted pastes on the pages (issue 23): the password form, the session that
remembers it, burn only by the right password, the guess limit; the new-paste form's two options."""

import pytest
from django.test import Client

from pastes.models import Paste
from tests.pastes.e2e import decrypt, encrypt
from tests.pastes.test_pages import CHROME, FORM, csrf, post, signed_in
from tests.pastes.test_password import protected

pytestmark = pytest.mark.django_db


def browser() -> Client:
    return Client(HTTP_USER_AGENT=CHROME, enforce_csrf_checks=True)


@pytest.mark.parametrize("who", ["other", "anonymous"])
def test_the_page_asks_for_the_password_and_remembers_it(user, other_user, who):
    paste = protected(user, name="Vault")
    client = signed_in(other_user) if who == "other" else browser()
    url = f"/pastes/{paste.id}"

    asked = client.get(url)
    wrong = post(client, url, {"password": "guess"})

    for response in (asked, wrong):
        assert "the treasure" not in response.content.decode()
        assert "protected by a password" in response.content.decode()
    assert (asked.status_code, wrong.status_code) == (200, 403)
    assert "Wrong password." in wrong.content.decode()
    right = post(client, url, {"password": "open sesame"})
    assert (right.status_code, right["Location"]) == (302, url)
    assert "the treasure" in client.get(url).content.decode()
    assert "the treasure" in client.get(f"{url}/download").content.decode()  # the session remembers
    paste.refresh_from_db()
    assert paste.views == 2


def test_the_owner_sees_the_paste_without_the_form(user):
    paste = protected(user)

    assert "the treasure" in signed_in(user).get(f"/pastes/{paste.id}").content.decode()


def test_download_and_fork_wait_for_the_password(user, other_user):
    paste = protected(user)
    client = signed_in(other_user)

    assert client.get(f"/pastes/{paste.id}/download")["Location"] == f"/pastes/{paste.id}"
    assert client.get(f"/pastes/{paste.id}/fork")["Location"] == f"/pastes/{paste.id}"


def test_a_new_password_locks_the_paste_again(user):
    paste = protected(user)
    client = browser()
    post(client, f"/pastes/{paste.id}", {"password": "open sesame"})

    paste.set_password("changed")
    paste.save()

    assert "the treasure" not in client.get(f"/pastes/{paste.id}").content.decode()


def test_a_burning_paste_is_revealed_and_burned_by_the_right_password_only(user):
    paste = protected(user, burn_after_read=True)
    client = browser()
    url = f"/pastes/{paste.id}"

    assert "Unlock and reveal" in client.get(url).content.decode()
    assert post(client, url, {"password": "guess"}).status_code == 403
    assert Paste.objects.filter(pk=paste.pk).exists()
    shown = post(client, url, {"password": "open sesame"})

    assert shown.status_code == 200
    assert "the treasure" in shown.content.decode()
    assert "burned after reading" in shown.content.decode()
    assert not Paste.objects.filter(pk=paste.pk).exists()


def test_guesses_on_the_page_are_limited(user, settings):
    settings.PASTES_PASSWORD_RATE_LIMIT = 2
    paste = protected(user)
    client = browser()

    statuses = [post(client, f"/pastes/{paste.id}", {"password": "guess"}).status_code for _ in range(2)]
    limited = post(client, f"/pastes/{paste.id}", {"password": "open sesame"})

    assert statuses == [403, 403]
    assert limited.status_code == 429
    assert "Too many wrong passwords for this paste" in limited.content.decode()
    assert "the treasure" not in limited.content.decode()


def test_right_passwords_on_the_page_are_checked_once_per_session_and_limited_per_address(user, settings):
    # Each check hashes the password (issue 49): a session that gave it is not checked again, and an
    # address that keeps giving it, session after session, is limited like one that guesses.
    settings.PASTES_PASSWORD_CHECK_LIMIT = 2
    paste = protected(user)
    url = f"/pastes/{paste.id}"
    reader = browser()

    unlocked = post(reader, url, {"password": "open sesame"})
    reloads = [reader.get(url) for _ in range(3)]
    again = post(browser(), url, {"password": "open sesame"})
    limited = post(browser(), url, {"password": "open sesame"})

    assert unlocked.status_code == 302 and again.status_code == 302
    assert all(reload.status_code == 200 and "the treasure" in reload.content.decode() for reload in reloads)
    assert limited.status_code == 429
    assert int(limited["Retry-After"]) > 0
    assert "Too many passwords checked for your address" in limited.content.decode()
    assert "the treasure" not in limited.content.decode()


def test_the_password_form_needs_csrf(user):
    paste = protected(user)

    assert browser().post(f"/pastes/{paste.id}", {"password": "open sesame"}).status_code == 403


def test_the_new_paste_form_sets_a_password(user):
    client = signed_in(user)

    response = post(client, "/pastes/new", FORM | {"password": "pw"})

    assert response.status_code == 302
    assert Paste.objects.get().check_password("pw")


def test_the_edit_form_keeps_changes_or_removes_the_password(user):
    paste = protected(user)
    client = signed_in(user)
    edit = f"/pastes/{paste.id}/edit"
    fields = FORM | {"expiration": ""}

    post(client, edit, fields)
    paste.refresh_from_db()
    assert paste.check_password("open sesame")  # empty: kept
    post(client, edit, fields | {"password": "new"})
    paste.refresh_from_db()
    assert paste.check_password("new")
    post(client, edit, fields | {"remove_password": "on"})
    paste.refresh_from_db()
    assert paste.password == ""


def test_the_form_posts_an_envelope_for_an_encrypted_paste(user):
    content, key = encrypt("secret text")
    client = signed_in(user)

    response = post(client, "/pastes/new", FORM | {"content": content, "encrypted": "on"})

    paste = Paste.objects.get()
    assert response.status_code == 302
    assert (paste.encrypted, paste.syntax) == (True, "")  # nothing guessed from ciphertext
    assert decrypt(paste.content, key) == "secret text"
    page = client.get(f"/pastes/{paste.id}").content.decode()
    assert "end-to-end encrypted" in page and 'id="paste-envelope"' in page


def test_the_form_refuses_plain_text_marked_encrypted(user):
    client = signed_in(user)

    response = post(client, "/pastes/new", FORM | {"encrypted": "on"})

    assert response.status_code == 400
    assert "An encrypted paste&#x27;s content must be the envelope" in response.content.decode()
    assert not Paste.objects.exists()


def test_csrf_token_helper_still_works(user):
    assert csrf(signed_in(user), "/pastes/new")


def test_a_preview_bot_with_the_right_password_burns_nothing_and_is_told_why(user):
    from tests.pastes.test_robots import ROBOTS

    paste = protected(user, burn_after_read=True)
    client = Client(HTTP_USER_AGENT=ROBOTS["Slackbot"], enforce_csrf_checks=True)

    response = post(client, f"/pastes/{paste.id}", {"password": "open sesame"})

    assert response.status_code == 403
    assert "Not revealed: this request comes from a known link-preview agent" in response.content.decode()
    assert "the treasure" not in response.content.decode()
    assert Paste.objects.filter(pk=paste.pk).exists()
