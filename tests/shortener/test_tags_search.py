"""Tags, and searching one's own links by URL, code or tag (issue 23), in JSON and HTML."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework import status

from shortener import messages
from shortener.models import LinkTag, ShortLink
from shortener.views.stats import SEARCH_MAX_LENGTH
from tests.shortener.asserts import assert_shortener_error, assert_shortener_error_page
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

JSON = {"_format": "json"}


def tag(link, *names):
    for name in names:
        LinkTag.objects.create(link=link, name=name)


@pytest.fixture
def links(user, other_user):
    talk = ShortLinkFactory(code="talk1", owner=user, url="https://conf.example/talk", counter=3)
    tag(talk, "work", "2026")
    blog = ShortLinkFactory(code="blog1", owner=user, url="https://blog.example/post", counter=2)
    tag(blog, "personal")
    ShortLinkFactory(code="plain1", owner=user, url="https://plain.example/", counter=1)
    bobs = ShortLinkFactory(code="bobtalk", owner=other_user, url="https://conf.example/bob")
    tag(bobs, "work")


def shorts(response):
    return [item["short"].rsplit("/", 1)[1] for item in response.json()]


def test_create_with_tags_answers_them_and_stores_them_lowercased(alice_client):
    response = alice_client.post("/s/a", {"shorturl": "https://t.example/", "tags": "Work, work 2026", **JSON})

    assert response.json()["tags"] == ["2026", "work"]
    link = ShortLink.objects.get(url="https://t.example/")
    assert sorted(LinkTag.objects.filter(link=link).values_list("name", flat=True)) == ["2026", "work"]


def test_plain_links_keep_lstus_shape(alice_client, links):
    [plain] = [item for item in alice_client.get("/s/stats", JSON).json() if item["short"].endswith("/plain1")]

    assert set(plain) == {"short", "url", "counter", "created_at", "qrcode"}


def test_filter_by_tag_lists_only_own_tagged_links(alice_client, links):
    response = alice_client.get("/s/stats", {**JSON, "tag": "work"})

    assert shorts(response) == ["talk1"]
    assert response["X-Total-Count"] == "1"
    assert response.json()[0]["tags"] == ["2026", "work"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [("conf.example", ["talk1"]), ("BLOG", ["blog1"]), ("personal", ["blog1"]), ("plain1", ["plain1"]), ("zz", [])],
)
def test_search_by_url_code_or_tag(alice_client, links, query, expected):
    response = alice_client.get("/s/stats", {**JSON, "q": query})

    assert shorts(response) == expected
    assert response["X-Total-Count"] == str(len(expected))


def test_another_users_search_never_finds_my_links(bob_client, links):
    assert shorts(bob_client.get("/s/stats", {**JSON, "q": "conf"})) == ["bobtalk"]


def test_admin_mode_searches_everyones_links(admin_mode_client, links):
    assert sorted(shorts(admin_mode_client.get("/s/stats", {**JSON, "q": "conf"}))) == ["bobtalk", "talk1"]


def test_anonymous_cannot_search(client, links):
    assert_shortener_error(client.get("/s/stats", {**JSON, "q": "conf"}), 401, messages.LOGIN_REQUIRED)


def test_bad_tag_and_long_search_get_c_error_shape(alice_client):
    assert_shortener_error(
        alice_client.get("/s/stats", {**JSON, "tag": "no spaces"}), 400, messages.TAG_INVALID.format(limit=32)
    )
    assert_shortener_error(
        alice_client.get("/s/stats", {**JSON, "q": "x" * (SEARCH_MAX_LENGTH + 1)}),
        400,
        messages.SEARCH_TOO_LONG.format(limit=SEARCH_MAX_LENGTH),
    )
    assert_shortener_error_page(
        alice_client.get("/s/stats", {"tag": "<b>"}), 400, messages.TAG_INVALID.format(limit=32)
    )
    assert_shortener_error(
        alice_client.get("/s/stats", {**JSON, "q": "a\x00b"}), 400, messages.FIELD_HAS_NUL.format(field="q")
    )


def test_the_page_has_a_search_form_tag_links_and_keeps_the_filter_in_the_pager(alice_client, user, settings):
    for n in range(105):
        link = ShortLinkFactory(owner=user, code=f"many{n:03d}", url=f"https://many.example/{n}")
        tag(link, "bulk")

    page = alice_client.get("/s/stats", {"tag": "bulk", "q": "many"})

    html = page.content.decode()
    assert page.status_code == status.HTTP_200_OK
    assert 'type="search"' in html and 'name="q"' in html
    assert 'href="?tag=bulk"' in html
    assert "105 links" in html
    assert 'href="?q=many&amp;tag=bulk&amp;page=2"' in html


def test_tags_are_edited_and_cleared(alice_client, user):
    link = ShortLinkFactory(owner=user, code="tagged")
    tag(link, "old")

    patch = alice_client.patch("/s/edit/tagged", json.dumps({"tags": "new, other"}), content_type="application/json")
    assert patch.json()["tags"] == ["new", "other"]
    cleared = alice_client.patch("/s/edit/tagged", json.dumps({"tags": ""}), content_type="application/json")
    assert "tags" not in cleared.json()
    assert not LinkTag.objects.filter(link=link).exists()


def test_export_and_import_carry_tags(alice_client, bob_client, links):
    exported = alice_client.get("/s/export").getvalue()
    rows = {row["short"].rsplit("/", 1)[1]: row for row in json.loads(exported)}
    assert rows["talk1"]["tags"] == ["2026", "work"]
    assert rows["plain1"]["tags"] == []

    ShortLink.objects.filter(owner__username="alice").delete()
    response = bob_client.post("/s/import", {"file": SimpleUploadedFile("links.json", exported), **JSON})

    assert response.json()["created"] == 3
    imported = ShortLink.objects.get(url="https://conf.example/talk")
    assert sorted(LinkTag.objects.filter(link=imported).values_list("name", flat=True)) == ["2026", "work"]
