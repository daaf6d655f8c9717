"""Password-protected pastes (issue 23): hashed at rest, asked for by the API's header and the page's form,
guesses limited per paste and address in the database, nothing counted or burned before the right password."""

import pytest
from django.test import Client

from common.models import LimitCounter
from pastes.models import Paste
from tests.pastes.asserts import assert_pastes_error
from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db

REQUIRED = "This paste is protected by a password: send it in the X-Paste-Password header."
WRONG = "Wrong password for this paste."
GONE = "Paste not found (it may have expired, been burned after reading, or never existed)."


def protected(owner, password="open sesame", **fields) -> Paste:
    paste = PasteFactory(owner=owner, content="the treasure", **fields)
    paste.set_password(password)
    paste.save()
    return paste


def read(client, paste, password=None, *, raw=False, address="10.0.0.1"):
    headers = {} if password is None else {"HTTP_X_PASTE_PASSWORD": password}
    path = f"/pastes/paste/@{paste.id}" + ("/raw" if raw else "")
    return client.get(path, REMOTE_ADDR=address, **headers)


def test_create_hashes_the_password_and_says_the_paste_is_protected(owner_client):
    response = owner_client.post(
        "/pastes/create", {"name": "vault", "content": "gold", "password": "open sesame"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["password_protected"] is True
    assert "password" not in response.json()
    paste = Paste.objects.get()
    assert "open sesame" not in paste.password
    assert paste.check_password("open sesame") and not paste.check_password("open")


@pytest.mark.parametrize(
    ("value", "message"),
    [(123, "password must be a string."), ("x" * 129, "Ensure this field has no more than 128 characters.")],
)
def test_a_bad_password_field_is_a_400(owner_client, value, message):
    response = owner_client.post(
        "/pastes/create", {"name": "vault", "content": "gold", "password": value}, format="json"
    )

    assert_pastes_error(response, 400, message)
    assert not Paste.objects.exists()


@pytest.mark.parametrize("who", ["other", "anonymous"])
@pytest.mark.parametrize("raw", [False, True], ids=["json", "raw"])
def test_readers_need_the_password_in_the_header(clients, user, who, raw):
    paste = protected(user)

    assert_pastes_error(read(clients[who], paste, raw=raw), 401, REQUIRED)
    assert_pastes_error(read(clients[who], paste, "Open Sesame", raw=raw), 403, WRONG)
    paste.refresh_from_db()
    assert paste.views == 0  # nothing counted before the right password
    response = read(clients[who], paste, "open sesame", raw=raw)

    assert response.status_code == 200
    assert (response.content.decode() if raw else response.json()["content"]) == "the treasure"
    paste.refresh_from_db()
    assert paste.views == 1


def test_the_owner_needs_no_password(owner_client, user):
    paste = protected(user)

    assert read(owner_client, paste).json()["content"] == "the treasure"


def test_head_needs_the_password_too(anon_client, user):
    paste = protected(user)

    assert anon_client.head(f"/pastes/paste/@{paste.id}").status_code == 401


def test_only_the_right_password_burns(anon_client, user):
    paste = protected(user, burn_after_read=True)

    assert_pastes_error(read(anon_client, paste), 401, REQUIRED)
    assert_pastes_error(read(anon_client, paste, "guess"), 403, WRONG)
    assert Paste.objects.filter(pk=paste.pk).exists()
    assert read(anon_client, paste, "open sesame").json()["content"] == "the treasure"
    assert not Paste.objects.filter(pk=paste.pk).exists()
    assert_pastes_error(read(anon_client, paste, "open sesame"), 404, GONE)


def test_wrong_guesses_are_limited_per_paste_and_address(anon_client, user, settings):
    settings.PASTES_PASSWORD_RATE_LIMIT = 3
    paste = protected(user)
    other_paste = protected(user)

    for _ in range(3):
        assert_pastes_error(read(anon_client, paste, "guess"), 403, WRONG)
    limited = read(anon_client, paste, "open sesame")  # even the right one, now

    assert limited.status_code == 429
    assert int(limited["Retry-After"]) > 0
    assert_pastes_error(
        limited,
        429,
        f"Too many wrong passwords for this paste from your address: try again in {limited['Retry-After']} seconds.",
    )
    assert read(anon_client, paste, "open sesame", address="10.0.0.2").status_code == 200
    assert read(anon_client, other_paste, "open sesame").status_code == 200


def test_right_passwords_never_use_up_the_limit(anon_client, user, settings):
    settings.PASTES_PASSWORD_RATE_LIMIT = 2
    paste = protected(user)

    statuses = [read(anon_client, paste, "open sesame").status_code for _ in range(5)]

    assert statuses == [200] * 5
    assert not LimitCounter.objects.filter(key__startswith="pastes:password:").exists()


def test_the_limit_holds_without_the_cache(anon_client, user, settings):
    # What a Redis outage leaves (common/cache.py): a cache that keeps nothing. The counts are in the database.
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    settings.PASTES_PASSWORD_RATE_LIMIT = 2
    paste = protected(user)

    statuses = [read(anon_client, paste, "guess").status_code for _ in range(3)]

    assert statuses == [403, 403, 429]


def test_password_checks_are_limited_per_address_right_or_wrong_whatever_the_paste(
    anon_client, user, settings, monkeypatch
):
    # Every check hashes the password, slowly on purpose: right passwords cost CPU as guesses do (issue 49).
    settings.PASTES_PASSWORD_CHECK_LIMIT = 4
    first, second = protected(user), protected(user)
    hashed = []
    check_password = Paste.check_password
    monkeypatch.setattr(Paste, "check_password", lambda paste, raw: hashed.append(raw) or check_password(paste, raw))

    statuses = [read(anon_client, paste, "open sesame").status_code for paste in (first, second, first)]
    statuses.append(read(anon_client, second, "guess").status_code)
    limited = read(anon_client, first, "open sesame")

    assert statuses == [200, 200, 200, 403]
    assert_pastes_error(
        limited,
        429,
        "Too many passwords checked for your address: at most 4 per minute, right or wrong, whatever the paste; "
        f"try again in {limited['Retry-After']} seconds.",
    )
    assert 0 < int(limited["Retry-After"]) <= 60
    assert len(hashed) == 4  # the refused read hashed nothing
    assert read(anon_client, first, "open sesame", address="10.0.0.2").status_code == 200
    assert read(anon_client, first, raw=True, address="10.0.0.1").status_code == 401  # no password: no check


def test_the_owner_changes_and_removes_the_password_and_others_may_not(owner_client, other_client, user):
    paste = protected(user)

    assert_pastes_error(
        other_client.patch(f"/pastes/edit/{paste.id}", {"id": paste.id, "password": ""}, format="json"),
        403,
        "Only the owner of this paste may change or delete it.",
    )
    owner_client.patch(f"/pastes/edit/{paste.id}", {"id": paste.id, "password": "new one"}, format="json")
    paste.refresh_from_db()
    assert paste.check_password("new one") and not paste.check_password("open sesame")
    body = owner_client.patch(f"/pastes/edit/{paste.id}", {"id": paste.id, "password": ""}, format="json").json()
    assert body["password_protected"] is False
    paste.refresh_from_db()
    assert paste.password == ""


def test_others_do_not_see_protected_pastes_in_listings(owner_client, other_client, anon_client, user):
    protected(user, name="vault")
    PasteFactory(owner=user, name="open")

    def names(client):
        return [paste["name"] for paste in client.get("/pastes/accounts/@alice").json()["pastes"]]

    assert names(anon_client) == names(other_client) == ["open"]
    assert sorted(names(owner_client)) == ["open", "vault"]


def test_a_curl_form_sets_the_password(owner_key):
    response = Client(HTTP_AUTHORIZATION=owner_key).post(
        "/pastes/create?name=notes", {"content": "text", "password": "pw"}, HTTP_ACCEPT="text/plain"
    )

    assert response.status_code == 200
    assert Paste.objects.get().check_password("pw")
