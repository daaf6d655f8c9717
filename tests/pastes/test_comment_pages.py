"""The discussion on a paste's page (issue 47, item 4): shown, posted and deleted with forms and CSRF."""

import pytest
from django.test import Client

from pastes.models import Comment, Paste
from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def discussed(user):
    return PasteFactory(owner=user, name="talk", content="print(1)", discussion=True)


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_page_shows_the_discussion_and_an_anonymous_reader_comments_and_replies(client, discussed):
    page = client.get(f"/pastes/{discussed.id}").content.decode()
    assert "No comments yet." in page and 'name="nickname"' in page

    response = client.post(f"/pastes/{discussed.id}/comments", {"text": "Looks good\r\nto me", "nickname": "Ann"})
    assert response.status_code == 302 and response["Location"] == f"/pastes/{discussed.id}"
    top = Comment.objects.get()
    assert (top.nickname, top.text, top.author) == ("Ann", "Looks good\nto me", None)
    client.post(f"/pastes/{discussed.id}/comments", {"text": "Thanks", "parent_id": str(top.pk)})
    reply = Comment.objects.get(parent=top)

    page = client.get(f"/pastes/{discussed.id}").content.decode()
    assert "Comment posted." in page
    assert "Looks good<br>to me" in page and f'id="comment-{reply.pk}"' in page
    assert "Anonymous" in page  # the reply had no nickname
    assert "Delete this comment" not in page  # a stranger deletes nothing


def test_a_signed_in_reader_comments_as_themselves_and_the_owner_deletes_it(discussed, other_user, user):
    bob = signed_in(other_user)
    assert 'name="nickname"' not in bob.get(f"/pastes/{discussed.id}").content.decode()
    bob.post(f"/pastes/{discussed.id}/comments", {"text": "bob here", "nickname": "not bob"})
    comment = Comment.objects.get()
    assert (comment.author, comment.nickname) == (other_user, "")

    alice = signed_in(user)
    assert "Delete this comment" in alice.get(f"/pastes/{discussed.id}").content.decode()
    response = alice.post(f"/pastes/{discussed.id}/comments/{comment.pk}/delete")
    assert response.status_code == 302
    assert not Comment.objects.exists()


def test_another_user_cannot_delete_someone_elses_comment_and_anonymous_is_sent_to_sign_in(
    client, discussed, other_user
):
    comment = Comment.objects.create(paste=discussed, text="anon's", nickname="Ann")
    response = signed_in(other_user).post(f"/pastes/{discussed.id}/comments/{comment.pk}/delete")
    assert response.status_code == 403
    assert (
        "Only the paste&#x27;s owner or the comment&#x27;s author may delete this comment." in response.content.decode()
    )
    assert client.post(f"/pastes/{discussed.id}/comments/{comment.pk}/delete").status_code == 302  # to sign in
    assert signed_in(other_user).get(f"/pastes/{discussed.id}/comments/{comment.pk}/delete").status_code == 405
    huge = signed_in(other_user).post(f"/pastes/{discussed.id}/comments/{2**64}/delete")
    assert huge.status_code == 404
    assert Comment.objects.count() == 1


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"text": ""}, "text must not be empty."),
        ({"text": "x" * 10_001}, "Ensure this field has no more than 10000 characters."),
        ({"text": "hi", "parent_id": "abc"}, "parent_id must be a whole number (a comment id) or null."),
        ({"text": "hi", "parent_id": "99999"}, "parent_id 99999 is not a comment of this paste."),
    ],
)
def test_bad_comments_are_shown_on_the_page_and_nothing_is_written(client, discussed, form, message):
    response = client.post(f"/pastes/{discussed.id}/comments", form, follow=True)
    assert message in response.content.decode()
    assert not Comment.objects.exists()


def test_private_password_and_closed_discussions_on_the_page(client, user, other_user):
    private = PasteFactory(owner=user, exposure=Paste.Exposure.PRIVATE, discussion=True)
    assert signed_in(other_user).post(f"/pastes/{private.id}/comments", {"text": "x"}).status_code == 404
    closed = PasteFactory(owner=user)
    assert "Discussion" not in client.get(f"/pastes/{closed.id}").content.decode()
    response = client.post(f"/pastes/{closed.id}/comments", {"text": "x"}, follow=True)
    assert "This paste has no discussion" in response.content.decode()
    protected = PasteFactory(owner=user, discussion=True)
    protected.set_password("open sesame")
    protected.save()
    response = client.post(f"/pastes/{protected.id}/comments", {"text": "x"})
    assert response.status_code == 302 and response["Location"] == f"/pastes/{protected.id}"  # the password first
    assert not Comment.objects.exists()


def test_the_page_is_rate_limited_like_the_api(client, discussed, settings):
    settings.PASTES_COMMENT_RATE_LIMIT = 1
    assert client.post(f"/pastes/{discussed.id}/comments", {"text": "one"}).status_code == 302
    response = client.post(f"/pastes/{discussed.id}/comments", {"text": "two"})
    assert response.status_code == 429
    assert "Too many comments from your address" in response.content.decode()
    assert Comment.objects.count() == 1


def test_the_form_opens_a_discussion(user):
    alice = signed_in(user)
    response = alice.post(
        "/pastes/new", {"name": "talk", "content": "x", "expiration": "Never", "exposure": "public", "discussion": "on"}
    )
    assert response.status_code == 302
    assert Paste.objects.get().discussion is True


def test_csrf_is_required(discussed):
    client = Client(enforce_csrf_checks=True)
    assert client.post(f"/pastes/{discussed.id}/comments", {"text": "x"}).status_code == 403
    assert not Comment.objects.exists()
