"""Discussions (issue 47, item 4): comments under a paste created with `discussion: true`, through the API.

Every endpoint as the paste's owner, another user and anonymous; private and password pastes as
reading them; bad input in B's `{code, message}`; comments gone with the paste; under an
encrypted paste the stored row holds only the envelope.
"""

import json
import os
import re

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.utils import timezone

from pastes.models import COMMENT_MAX_CHARS, COMMENTS_PER_PASTE_MAX, Comment, Paste
from tests.pastes.asserts import assert_pastes_error
from tests.pastes.e2e import decrypt, encrypt, snippet
from tests.pastes.factories import PasteFactory

b64url, unb64url = snippet["b64url"], snippet["unb64url"]

pytestmark = pytest.mark.django_db

GONE = "Paste not found (it may have expired, been burned after reading, or never existed)."
NO_DISCUSSION = "This paste has no discussion: it was created without discussion: true."


@pytest.fixture
def discussed(user):
    return PasteFactory(owner=user, name="talk", content="print(1)", discussion=True)


def comments_url(paste) -> str:
    return f"/pastes/paste/@{paste.id}/comments"


def post(client, paste, body, **extra):
    return client.post(comments_url(paste), body, format="json", **extra)


def test_create_with_discussion_is_returned_on_reads(owner_client, anon_client):
    response = owner_client.post("/pastes/create", {"name": "talk", "content": "x", "discussion": True}, format="json")

    assert response.status_code == 200
    assert response.json()["discussion"] is True
    paste = Paste.objects.get()
    assert paste.discussion is True
    assert anon_client.get(f"/pastes/paste/@{paste.id}").json()["discussion"] is True


def test_discussion_defaults_off_and_must_be_a_boolean(owner_client):
    assert (
        owner_client.post("/pastes/create", {"name": "no", "content": "x"}, format="json").json()["discussion"] is False
    )
    response = owner_client.post("/pastes/create", {"name": "no", "content": "x", "discussion": "yes"}, format="json")
    assert_pastes_error(response, 400, "discussion must be true or false.")


def test_discussion_and_burn_after_read_are_refused_together(owner_client, user):
    body = {"name": "x1", "content": "x", "discussion": True, "burn_after_read": True}
    message = "A paste cannot both burn after reading and take comments: choose one."
    assert_pastes_error(owner_client.post("/pastes/create", body, format="json"), 400, message)
    assert not Paste.objects.exists()
    paste = PasteFactory(owner=user, discussion=True)
    response = owner_client.patch(f"/pastes/edit/{paste.id}", {"id": paste.id, "burn_after_read": True}, format="json")
    assert_pastes_error(response, 400, message)
    paste.refresh_from_db()
    assert paste.burn_after_read is False


@pytest.mark.parametrize("who", ["owner", "other", "anonymous"])
def test_everyone_who_can_read_a_public_paste_comments_and_reads_the_discussion(clients, discussed, who):
    response = post(clients[who], discussed, {"text": "Nice one", "nickname": "Ann"})

    assert response.status_code == 201, response.content
    body = response.json()
    author = {"owner": "alice", "other": "bob", "anonymous": None}[who]
    assert body["author"] == author
    assert body["nickname"] == (None if author else "Ann")  # a key's user is shown by username
    assert body["text"] == "Nice one"
    assert body["parent_id"] is None and body["replies"] == [] and body["encrypted"] is False
    comment = Comment.objects.get()
    assert (comment.paste_id, comment.text) == (discussed.id, "Nice one")
    assert comment.author == (None if who == "anonymous" else comment.author)

    listing = clients[who].get(comments_url(discussed))
    assert listing.status_code == 200
    assert listing.json() == {"comments": [body], "count": 1}
    assert listing["Cache-Control"] == "no-store"
    discussed.refresh_from_db()
    assert discussed.views == 0  # the discussion counts no view


def test_replies_nest_one_level_oldest_first(anon_client, discussed):
    first = post(anon_client, discussed, {"text": "first"}).json()
    second = post(anon_client, discussed, {"text": "second"}).json()
    reply = post(anon_client, discussed, {"text": "re: first", "parent_id": first["id"]}).json()
    assert reply["parent_id"] == first["id"]

    body = anon_client.get(comments_url(discussed)).json()

    assert body["count"] == 3
    assert [comment["text"] for comment in body["comments"]] == ["first", "second"]
    assert [comment["text"] for comment in body["comments"][0]["replies"]] == ["re: first"]
    assert body["comments"][1]["replies"] == []
    assert second["nickname"] is None  # anonymous without a nickname


def test_a_reply_to_a_reply_is_refused(anon_client, discussed):
    first = post(anon_client, discussed, {"text": "first"}).json()
    reply = post(anon_client, discussed, {"text": "reply", "parent_id": first["id"]}).json()

    response = post(anon_client, discussed, {"text": "deeper", "parent_id": reply["id"]})

    message = (
        f"Replies go one level deep: comment {reply['id']} is itself a reply; answer comment {first['id']} instead."
    )
    assert_pastes_error(response, 400, message)
    assert Comment.objects.count() == 2


def test_a_reply_to_another_pastes_comment_is_refused(anon_client, discussed, user):
    elsewhere = PasteFactory(owner=user, discussion=True)
    foreign = post(anon_client, elsewhere, {"text": "there"}).json()

    response = post(anon_client, discussed, {"text": "here", "parent_id": foreign["id"]})

    assert_pastes_error(response, 400, f"parent_id {foreign['id']} is not a comment of this paste.")
    assert Comment.objects.filter(paste=discussed).count() == 0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "text is required."),
        ({"text": ""}, "text must not be empty."),
        ({"text": "   \n"}, "text must not be empty."),
        ({"text": 5}, "text must be a string."),
        ({"text": None}, "text may not be null."),
        ({"text": "a\x00b"}, "text must not contain NUL characters."),
        (
            {"text": "x" * (COMMENT_MAX_CHARS + 1)},
            f"Ensure this field has no more than {COMMENT_MAX_CHARS} characters.",
        ),
        ({"text": "hi", "nickname": "n" * 51}, "Ensure this field has no more than 50 characters."),
        ({"text": "hi", "nickname": 7}, "nickname must be a string."),
        ({"text": "hi", "parent_id": "1"}, "parent_id must be a whole number (a comment id) or null."),
        ({"text": "hi", "parent_id": True}, "parent_id must be a whole number (a comment id) or null."),
        ({"text": "hi", "parent_id": 0}, "Ensure this value is greater than or equal to 1."),
        ({"text": "hi", "parent_id": 2**70}, "parent_id must be a whole number (a comment id) or null."),
        ({"text": "hi", "parent_id": 2**63}, f"Ensure this value is less than or equal to {2**63 - 1}."),
        ({"text": "hi", "parent_id": 424242}, "parent_id 424242 is not a comment of this paste."),
        ({"text": "hi", "author": "eve"}, "Unknown field(s): author. Allowed fields: text, nickname, parent_id."),
        ([], "The request body must be a JSON object."),
        (None, "The request body must be a JSON object."),
    ],
)
def test_bad_comments_are_400s_and_nothing_is_written(anon_client, discussed, body, message):
    response = anon_client.post(comments_url(discussed), json.dumps(body), content_type="application/json")

    assert_pastes_error(response, 400, message)
    assert not Comment.objects.exists()


def test_malformed_json_and_other_content_types_are_refused(anon_client, discussed):
    response = anon_client.post(comments_url(discussed), '{"text": "x"', content_type="application/json")
    assert response.status_code == 400
    assert set(response.json()) == {"code", "message"}
    response = anon_client.post(comments_url(discussed), "text=x", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415
    assert set(response.json()) == {"code", "message"}
    assert not Comment.objects.exists()


def test_a_paste_without_discussion_takes_no_comments(anon_client, user):
    paste = PasteFactory(owner=user)
    assert_pastes_error(anon_client.get(comments_url(paste)), 404, NO_DISCUSSION)
    assert_pastes_error(post(anon_client, paste, {"text": "hi"}), 404, NO_DISCUSSION)
    assert not Comment.objects.exists()


@pytest.mark.parametrize("paste_id", ["AAAAAAAAAAAA", "short", "a\x00b", "%00"])
def test_unknown_pastes_are_404s(anon_client, paste_id):
    assert_pastes_error(anon_client.get(f"/pastes/paste/@{paste_id}/comments"), 404, GONE)
    response = anon_client.post(f"/pastes/paste/@{paste_id}/comments", {"text": "x"}, format="json")
    assert_pastes_error(response, 404, GONE)


def test_a_private_discussion_is_its_owners_alone(clients, user):
    paste = PasteFactory(owner=user, exposure=Paste.Exposure.PRIVATE, discussion=True)

    assert post(clients["owner"], paste, {"text": "note to self"}).status_code == 201
    for who in ("other", "anonymous"):
        assert_pastes_error(clients[who].get(comments_url(paste)), 404, GONE)
        assert_pastes_error(post(clients[who], paste, {"text": "let me in"}), 404, GONE)
    assert clients["owner"].get(comments_url(paste)).json()["count"] == 1
    assert Comment.objects.count() == 1


def test_a_password_discussion_wants_the_password_but_not_from_the_owner(clients, user):
    paste = PasteFactory(owner=user, discussion=True)
    paste.set_password("open sesame")
    paste.save()

    assert post(clients["owner"], paste, {"text": "mine"}).status_code == 201
    for who in ("other", "anonymous"):
        client = clients[who]
        required = "This paste is protected by a password: send it in the X-Paste-Password header."
        assert_pastes_error(client.get(comments_url(paste)), 401, required)
        assert_pastes_error(post(client, paste, {"text": "x"}), 401, required)
        wrong = {"HTTP_X_PASTE_PASSWORD": "guess"}
        assert_pastes_error(client.get(comments_url(paste), **wrong), 403, "Wrong password for this paste.")
        right = {"HTTP_X_PASTE_PASSWORD": "open sesame"}
        assert post(client, paste, {"text": f"from {who}"}, **right).status_code == 201
        assert client.get(comments_url(paste), **right).json()["count"] >= 2
    assert Comment.objects.count() == 3


def test_comments_go_with_the_paste_deleted_expired_or_burned(owner_client, anon_client, user):
    deleted = PasteFactory(owner=user, discussion=True)
    expired = PasteFactory(owner=user, discussion=True)
    burned = PasteFactory(owner=user, discussion=True)
    for paste in (deleted, expired, burned):
        first = post(anon_client, paste, {"text": "top"}).json()
        post(anon_client, paste, {"text": "reply", "parent_id": first["id"]})
    assert Comment.objects.count() == 6

    assert owner_client.delete(f"/pastes/delete/{deleted.id}").status_code == 204
    assert Comment.objects.count() == 4

    Paste.objects.filter(pk=expired.pk).update(expiration=Paste.Expiration.ONE_DAY, expires_at=timezone.now())
    assert_pastes_error(anon_client.get(comments_url(expired)), 404, GONE)
    assert not Paste.objects.filter(pk=expired.pk).exists()
    assert Comment.objects.count() == 2

    # The discussion closed and burn after read on, by the owner: the first read burns paste and comments.
    edit = {"id": burned.id, "discussion": False, "burn_after_read": True}
    assert owner_client.patch(f"/pastes/edit/{burned.id}", edit, format="json").status_code == 200
    assert_pastes_error(anon_client.get(comments_url(burned)), 404, NO_DISCUSSION)  # reading it would burn it
    assert anon_client.get(f"/pastes/paste/@{burned.id}").status_code == 200
    assert not Comment.objects.exists()


def test_an_encrypted_discussion_stores_only_ciphertext(owner_client, anon_client):
    content, key = encrypt("the secret plan")
    created = owner_client.post(
        "/pastes/create",
        {"name": "plan", "content": content, "encrypted": True, "discussion": True},
        format="json",
    ).json()
    paste = Paste.objects.get(pk=created["id"])
    envelope = encrypt_with(key, "a secret remark")  # what a browser holding the link sends

    response = post(anon_client, paste, {"text": envelope, "nickname": "Ann"})

    assert response.status_code == 201
    row = Comment.objects.get()
    assert row.encrypted is True
    assert "secret remark" not in row.text
    assert row.text == envelope
    assert decrypt(anon_client.get(comments_url(paste)).json()["comments"][0]["text"], key) == "a secret remark"
    plain = post(anon_client, paste, {"text": "a secret remark in clear"})
    assert_pastes_error(plain, 400, re.compile(r"This paste is end-to-end encrypted, so its comments are too: .*"))
    assert Comment.objects.count() == 1


def encrypt_with(key: str, text: str) -> str:
    """`text` encrypted under an existing paste's key, as the README's snippet does for a new one."""
    iv = os.urandom(12)
    ciphertext = AESGCM(unb64url(key)).encrypt(iv, text.encode("utf-8"), None)
    return json.dumps({"v": 1, "alg": "AES-GCM-256", "iv": b64url(iv), "ct": b64url(ciphertext)})


def test_the_owner_deletes_any_comment_an_author_their_own(clients, discussed, other_user):
    by_other = post(clients["other"], discussed, {"text": "bob's"}).json()
    anonymous = post(clients["anonymous"], discussed, {"text": "anon"}).json()
    reply = post(clients["anonymous"], discussed, {"text": "re", "parent_id": anonymous["id"]}).json()

    url = f"{comments_url(discussed)}/{anonymous['id']}"
    assert_pastes_error(
        clients["anonymous"].delete(url), 401, "An API key is required: send it as the Authorization header."
    )
    message = "Only the paste's owner or the comment's author may delete this comment."
    assert_pastes_error(clients["other"].delete(url), 403, message)
    assert Comment.objects.count() == 3

    assert clients["owner"].delete(url).status_code == 204
    assert set(Comment.objects.values_list("pk", flat=True)) == {by_other["id"]}  # the reply went with it
    assert not Comment.objects.filter(pk=reply["id"]).exists()

    assert clients["other"].delete(f"{comments_url(discussed)}/{by_other['id']}").status_code == 204
    assert not Comment.objects.exists()


@pytest.mark.parametrize("comment_id", ["999999", "abc", str(2**64), "-1"])
def test_deleting_an_unknown_comment_is_a_404(owner_client, discussed, comment_id):
    response = owner_client.delete(f"{comments_url(discussed)}/{comment_id}")
    assert_pastes_error(response, 404, "Comment not found on this paste.")


def test_a_comment_is_deleted_only_through_its_own_paste(owner_client, anon_client, discussed, user):
    elsewhere = PasteFactory(owner=user, discussion=True)
    comment = post(anon_client, elsewhere, {"text": "there"}).json()
    response = owner_client.delete(f"{comments_url(discussed)}/{comment['id']}")
    assert_pastes_error(response, 404, "Comment not found on this paste.")
    assert Comment.objects.count() == 1


def test_comments_are_rate_limited_per_address(anon_client, discussed, settings):
    settings.PASTES_COMMENT_RATE_LIMIT = 3
    for number in range(3):
        assert post(anon_client, discussed, {"text": f"{number}"}, REMOTE_ADDR="10.0.0.7").status_code == 201

    response = post(anon_client, discussed, {"text": "one more"}, REMOTE_ADDR="10.0.0.7")

    message = re.compile(
        r"Too many comments from your address: at most 3 per minute\. Expected available in \d+ seconds?\."
    )
    assert_pastes_error(response, 429, message)
    assert int(response["Retry-After"]) > 0
    assert post(anon_client, discussed, {"text": "elsewhere"}, REMOTE_ADDR="10.0.0.8").status_code == 201
    assert anon_client.get(comments_url(discussed), REMOTE_ADDR="10.0.0.7").status_code == 200  # reads are not
    assert Comment.objects.count() == 4


def test_a_full_discussion_takes_no_more(anon_client, discussed):
    Comment.objects.bulk_create(Comment(paste=discussed, text="x") for _ in range(COMMENTS_PER_PASTE_MAX))
    response = post(anon_client, discussed, {"text": "one more"})
    assert_pastes_error(
        response, 403, f"This discussion is full: a paste takes at most {COMMENTS_PER_PASTE_MAX} comments."
    )
    assert Comment.objects.count() == COMMENTS_PER_PASTE_MAX
