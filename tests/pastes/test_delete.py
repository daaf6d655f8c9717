import pytest
from rest_framework import status

from pastes.errors import PasteNotFound
from pastes.models import Paste
from tests.pastes.asserts import assert_pastes_error
from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db


def delete(client, paste_id: str):
    return client.delete(f"/pastes/delete/{paste_id}")


@pytest.mark.parametrize("exposure", ["public", "unlisted", "private"])
def test_owner_deletes_paste_with_204_and_empty_body(owner_client, user, exposure):
    paste = PasteFactory(owner=user, exposure=exposure)

    response = delete(owner_client, paste.id)

    assert response.status_code == status.HTTP_204_NO_CONTENT
    assert response.content == b""
    assert not Paste.objects.filter(pk=paste.pk).exists()


def test_deleted_paste_is_gone(owner_client, anon_client, paste):
    delete(owner_client, paste.id)

    assert_pastes_error(anon_client.get(f"/pastes/paste/@{paste.id}"), 404, PasteNotFound.message)
    assert_pastes_error(delete(owner_client, paste.id), 404, PasteNotFound.message)


@pytest.mark.parametrize("exposure", ["public", "unlisted"])
def test_delete_of_another_users_visible_paste_is_403(other_client, user, exposure):
    paste = PasteFactory(owner=user, exposure=exposure)

    response = delete(other_client, paste.id)

    assert_pastes_error(response, 403, "Only the owner of this paste may change or delete it.")
    assert Paste.objects.filter(pk=paste.pk).exists()


def test_delete_of_another_users_private_paste_is_404(other_client, user):
    paste = PasteFactory(owner=user, exposure="private")

    response = delete(other_client, paste.id)

    assert_pastes_error(response, 404, PasteNotFound.message)
    assert Paste.objects.filter(pk=paste.pk).exists()


@pytest.mark.parametrize("exposure", ["public", "unlisted", "private"])
def test_delete_without_key_is_401(anon_client, user, exposure):
    paste = PasteFactory(owner=user, exposure=exposure)

    response = delete(anon_client, paste.id)

    assert_pastes_error(response, 401, "An API key is required: send it as the Authorization header.")
    assert Paste.objects.filter(pk=paste.pk).exists()


def test_delete_of_unknown_paste_is_404(owner_client):
    response = delete(owner_client, "AAAAAAAAAAAA")

    assert_pastes_error(response, 404, PasteNotFound.message)


def test_delete_answers_405_to_get(owner_client, paste):
    response = owner_client.get(f"/pastes/delete/{paste.id}")

    assert_pastes_error(response, 405, 'Method "GET" not allowed.')
    assert Paste.objects.filter(pk=paste.pk).exists()
