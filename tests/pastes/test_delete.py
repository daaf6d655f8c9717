import pytest
from rest_framework import status

from pastes.models import Paste
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

    assert anon_client.get(f"/pastes/paste/@{paste.id}").status_code == status.HTTP_404_NOT_FOUND
    assert delete(owner_client, paste.id).status_code == status.HTTP_404_NOT_FOUND


@pytest.mark.parametrize("exposure", ["public", "unlisted"])
def test_delete_of_another_users_visible_paste_is_403(other_client, user, exposure):
    paste = PasteFactory(owner=user, exposure=exposure)

    response = delete(other_client, paste.id)

    assert response.status_code == status.HTTP_403_FORBIDDEN
    assert response.json()["code"] == 403
    assert Paste.objects.filter(pk=paste.pk).exists()


def test_delete_of_another_users_private_paste_is_404(other_client, user):
    paste = PasteFactory(owner=user, exposure="private")

    response = delete(other_client, paste.id)

    assert response.status_code == status.HTTP_404_NOT_FOUND
    assert Paste.objects.filter(pk=paste.pk).exists()


@pytest.mark.parametrize("exposure", ["public", "unlisted", "private"])
def test_delete_without_key_is_401(anon_client, user, exposure):
    paste = PasteFactory(owner=user, exposure=exposure)

    response = delete(anon_client, paste.id)

    assert response.status_code == status.HTTP_401_UNAUTHORIZED
    assert Paste.objects.filter(pk=paste.pk).exists()


def test_delete_of_unknown_paste_is_404(owner_client):
    response = delete(owner_client, "AAAAAAAAAAAA")

    assert response.status_code == status.HTTP_404_NOT_FOUND
    assert response.json()["code"] == 404


def test_delete_answers_405_to_get(owner_client, paste):
    response = owner_client.get(f"/pastes/delete/{paste.id}")

    assert response.status_code == status.HTTP_405_METHOD_NOT_ALLOWED
    assert Paste.objects.filter(pk=paste.pk).exists()
