import pytest
from django.contrib.auth import get_user_model
from rest_framework import status

from shortener.models import ShortLink
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    staff = get_user_model().objects.create_superuser(username="root", password="root-password")
    client.force_login(staff)
    return client


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


def test_changelist_searches_by_code_url_and_owner(staff_client, user):
    ShortLinkFactory(code="findme", url="https://a.example/", owner=user)
    ShortLinkFactory(code="other", url="https://b.example/")

    by_code = staff_client.get("/admin/shortener/shortlink/", {"q": "findme"})
    by_owner = staff_client.get("/admin/shortener/shortlink/", {"q": user.username})

    assert by_code.status_code == status.HTTP_200_OK
    assert [link.code for link in by_code.context["cl"].result_list] == ["findme"]
    assert [link.code for link in by_owner.context["cl"].result_list] == ["findme"]


def test_counter_is_read_only_in_the_admin(staff_client):
    link = ShortLinkFactory(counter=7)

    response = staff_client.post(f"/admin/shortener/shortlink/{link.pk}/change/", change_form(link, counter=1000))

    assert response.status_code == status.HTTP_302_FOUND
    link.refresh_from_db()
    assert link.counter == 7


def test_editing_a_url_into_a_duplicate_generated_link_is_a_form_error(staff_client, user):
    ShortLinkFactory(code="first", url="https://same.example/", owner=user)
    second = ShortLinkFactory(code="second", url="https://other.example/", owner=user)

    response = staff_client.post(
        f"/admin/shortener/shortlink/{second.pk}/change/", change_form(second, url="https://same.example/")
    )

    assert response.status_code == status.HTTP_200_OK
    assert response.context["adminform"].form.errors
    second.refresh_from_db()
    assert second.url == "https://other.example/"
