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


def test_rules_saved_in_the_admin_are_checked_as_the_apis(admin_client, user):
    link = ShortLinkFactory(code="ruled", url="https://example.com/", owner=user)
    url = f"/admin/shortener/shortlink/{link.pk}/change/"

    bad = admin_client.post(
        url, change_form(link, rules='[{"when": {"device": "fridge"}, "url": "https://a.example/"}]')
    )
    good = admin_client.post(url, change_form(link, rules='[{"when": {"country": "fr"}, "url": "https://a.example/"}]'))

    assert bad.status_code == status.HTTP_200_OK
    assert "Rule 1: &quot;device&quot; must be one of ios, android, desktop." in bad.content.decode()
    assert good.status_code == status.HTTP_302_FOUND
    link.refresh_from_db()
    assert link.rules == [{"when": {"country": "FR"}, "url": "https://a.example/"}]
