import pytest
from rest_framework import status

from shortener.models import ShortLink
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db


def change_form(link: ShortLink, **changes) -> dict:
    return {
        "code": link.code,
        "url": link.url,
        "owner": link.owner_id or "",
        "is_custom": "on" if link.is_custom else "",
        "deleted_at_0": "",
        "deleted_at_1": "",
        **changes,
    }


def test_editing_a_url_into_a_duplicate_generated_link_is_a_form_error(admin_client, user):
    ShortLinkFactory(code="first", url="https://same.example/", owner=user)
    second = ShortLinkFactory(code="second", url="https://other.example/", owner=user)

    response = admin_client.post(
        f"/admin/shortener/shortlink/{second.pk}/change/", change_form(second, url="https://same.example/")
    )

    assert response.status_code == status.HTTP_200_OK
    assert response.context["adminform"].form.errors
    second.refresh_from_db()
    assert second.url == "https://other.example/"
