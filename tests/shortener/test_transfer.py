"""GET /export (JSON, CSV) and POST /import (our JSON, CSV url[,custom], Lstu's lstu_export.json)."""

import csv
import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework import status

from shortener import messages
from shortener.models import LinkImport, LinkTag, ShortLink
from shortener.services import transfer
from shortener.services.links import link_delete
from tests.shortener.asserts import any_number, assert_shortener_error, assert_shortener_error_page
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db


def upload(client: Client, content: str | bytes, name: str = "links.json", **fields):
    data = content.encode() if isinstance(content, str) else content
    return client.post("/s/import", {"file": SimpleUploadedFile(name, data), **fields})


def upload_json(client: Client, content: str | bytes, **fields):
    return upload(client, content, _format="json", **fields)


# --- export ---------------------------------------------------------------


def test_export_json_lists_own_live_links(alice_client, user, other_user):
    mine = ShortLinkFactory(code="mine", owner=user, url="https://a.example/", counter=4, is_custom=True)
    ShortLinkFactory(code="gen12345", owner=user, url="https://b.example/")
    link_delete(link=ShortLinkFactory(code="gone", owner=user))
    ShortLinkFactory(code="bobs", owner=other_user)

    response = alice_client.get("/s/export")

    assert response.status_code == status.HTTP_200_OK
    assert response["Content-Disposition"] == 'attachment; filename="short_links.json"'
    exported = json.loads(response.getvalue())
    assert exported == [
        {
            "url": "https://a.example/",
            "custom": "mine",
            "short": "http://testserver/s/mine",
            "counter": 4,
            "created_at": int(mine.created_at.timestamp()),
            "expires_at": None,
            "max_visits": None,
            "tags": [],
            "password_hash": "",
            "disabled": False,
            "domain": "",
        },
        {
            "url": "https://b.example/",
            "custom": "",
            "short": "http://testserver/s/gen12345",
            "counter": 0,
            "created_at": exported[1]["created_at"],
            "expires_at": None,
            "max_visits": None,
            "tags": [],
            "password_hash": "",
            "disabled": False,
            "domain": "",
        },
    ]


@pytest.mark.parametrize("path", ["/s/export?format=csv", "/s/export.csv", "/s/export?_format=csv"])
def test_export_csv_starts_with_url_and_custom(alice_client, user, path):
    ShortLinkFactory(code="mine", owner=user, url="https://a.example/?q=1,2", is_custom=True)

    response = alice_client.get(path)

    assert response["Content-Type"] == "text/csv; charset=utf-8"
    rows = list(csv.reader(io.StringIO(response.getvalue().decode())))
    assert rows[0] == [
        "url",
        "custom",
        "short",
        "counter",
        "created_at",
        "expires_at",
        "max_visits",
        "tags",
        "password_hash",
        "disabled",
        # Issue 46's link options.
        "rules",
        "forward_query",
        "forward_path",
        "redirect_status",
        "preview_title",
        "preview_description",
        "preview_image",
        "domain",
    ]
    assert rows[1][:4] == ["https://a.example/?q=1,2", "mine", "http://testserver/s/mine", "0"]
    assert rows[1][9:] == ["0", "", "0", "0", "", "", "", "", ""]  # not disabled, default options and domain


def test_export_csv_neutralises_cells_a_spreadsheet_would_run_as_formulas(alice_client, user):
    link = ShortLinkFactory(code="-A1-B1", owner=user, url="https://a.example/", is_custom=True)
    LinkTag.objects.create(link=link, name="-a1")
    LinkTag.objects.create(link=link, name="work")

    response = alice_client.get("/s/export.csv")

    rows = list(csv.DictReader(io.StringIO(response.getvalue().decode())))
    # A single quote first (OWASP): spreadsheets show the text, and do not compute -A1-B1.
    assert (rows[0]["custom"], rows[0]["tags"]) == ("'-A1-B1", "'-a1 work")
    assert (rows[0]["url"], rows[0]["short"]) == ("https://a.example/", "http://testserver/s/-A1-B1")


def test_csv_export_then_import_restores_codes_and_tags_that_start_like_formulas(
    alice_client, bob_client, user, other_user
):
    minus = ShortLinkFactory(code="-A1-B1", owner=user, url="https://a.example/", is_custom=True)
    LinkTag.objects.create(link=minus, name="-a1")
    LinkTag.objects.create(link=minus, name="work")
    ShortLinkFactory(code="-", owner=user, url="https://b.example/", is_custom=True)
    exported = alice_client.get("/s/export.csv").getvalue()
    ShortLink.objects.all().delete()

    response = upload_json(bob_client, exported, name="short_links.csv")

    assert (response.json()["created"], response.json()["refused"]) == (2, 0)
    imported = {link.code: link for link in ShortLink.objects.filter(owner=other_user)}
    assert {code: link.url for code, link in imported.items()} == {
        "-A1-B1": "https://a.example/",
        "-": "https://b.example/",
    }
    tags = LinkTag.objects.filter(link=imported["-A1-B1"]).order_by("name").values_list("name", flat=True)
    assert list(tags) == ["-a1", "work"]


def test_export_needs_login(client):
    response = client.get("/s/export", {"_format": "json"})

    assert_shortener_error(response, 401, messages.LOGIN_REQUIRED)


def test_export_then_import_elsewhere_gives_the_same_links(alice_client, bob_client, user, other_user):
    ShortLinkFactory(code="mine", owner=user, url="https://a.example/", is_custom=True)
    ShortLinkFactory(code="gen12345", owner=user, url="https://b.example/")
    exported = alice_client.get("/s/export").getvalue()
    ShortLink.objects.all().delete()

    response = upload_json(bob_client, exported)

    assert response.json()["created"] == 2
    assert ShortLink.objects.get(code="mine").owner == other_user
    assert ShortLink.objects.get(url="https://b.example/").owner == other_user


# --- import formats -------------------------------------------------------


def test_import_csv_creates_valid_lines_and_reports_each_refusal(alice_client, user):
    ShortLinkFactory(code="taken", url="https://other.example/")
    content = (
        "url,custom\n"
        "https://one.example/,\n"
        "truc\n"
        "https://two.example/,my-two\n"
        "https://three.example/,taken\n"
        "https://four.example/,api\n"
        "https://five.example/,bad code!\n"
    )

    response = upload_json(alice_client, content, name="links.csv")

    body = response.json()
    assert response.status_code == status.HTTP_200_OK
    assert (body["created"], body["refused"]) == (2, 4)
    refused = {line["line"]: line["msg"] for line in body["lines"] if line["status"] == "refused"}
    assert refused == {
        3: "truc is not a valid URL.",
        5: messages.CUSTOM_TAKEN.format(custom="taken", url="https://three.example/"),
        6: refused[6],
        7: messages.CUSTOM_INVALID.format(limit=64),
    }
    assert refused[6].startswith("The shortened text can't be")
    assert set(ShortLink.objects.filter(owner=user).values_list("url", flat=True)) == {
        "https://one.example/",
        "https://two.example/",
    }
    assert ShortLink.objects.get(code="my-two").owner == user


def test_import_csv_without_header_and_with_crlf(alice_client, user):
    response = upload_json(alice_client, "https://one.example/\r\nhttps://two.example/,two\r\n", name="x.csv")

    assert response.json()["created"] == 2
    assert ShortLink.objects.filter(owner=user).count() == 2


def test_import_reports_links_already_there(alice_client, user):
    ShortLinkFactory(code="gen12345", owner=user, url="https://one.example/")

    response = upload_json(alice_client, "https://one.example/\nhttps://one.example/\n", name="x.csv")

    body = response.json()
    assert [line["status"] for line in body["lines"]] == ["existing", "existing"]
    assert body["lines"][0]["short"] == "http://testserver/s/gen12345"
    assert ShortLink.objects.count() == 1


def test_import_lstu_stats_json_items(alice_client, user):
    items = [
        {"short": "http://lstu.example/abcdefgh", "url": "https://lstu.fr", "counter": 3, "created_at": 1},
        {"short": "http://lstu.example/x", "url": "not a url", "counter": 0, "created_at": 1},
        42,
    ]

    response = upload_json(alice_client, json.dumps(items))

    body = response.json()
    assert [line["status"] for line in body["lines"]] == ["created", "refused", "refused"]
    assert body["lines"][2]["msg"] == messages.IMPORT_NOT_A_LINK
    assert ShortLink.objects.get().url == "https://lstu.fr"


def test_import_lstu_cookie_export_takes_over_ownerless_links_only(alice_client, user, other_user):
    ShortLinkFactory(code="anon1234", owner=None, url="https://anon.example/")
    ShortLinkFactory(code="bobs1234", owner=other_user)
    ShortLinkFactory(code="mine1234", owner=user)
    link_delete(link=ShortLinkFactory(code="gone1234", owner=None))
    lstu_export = ["anon1234", "http://lstu.example/bobs1234", "mine1234", "gone1234", "nothere1", "???"]

    response = upload_json(alice_client, json.dumps(lstu_export), name="lstu_export.json")

    lines = response.json()["lines"]
    assert [line["status"] for line in lines] == ["claimed", "refused", "existing", "refused", "refused", "refused"]
    assert lines[1]["msg"] == messages.IMPORT_CODE_TAKEN.format(code="bobs1234")
    assert lines[3]["msg"] == messages.IMPORT_CODE_GONE.format(code="gone1234")
    assert lines[4]["msg"] == messages.IMPORT_CODE_UNKNOWN.format(code="nothere1")
    assert ShortLink.objects.get(code="anon1234").owner == user
    assert ShortLink.objects.get(code="bobs1234").owner == other_user


def test_claiming_a_code_for_a_url_the_user_already_shortened_is_refused(alice_client, user):
    ShortLinkFactory(code="anon1234", owner=None, url="https://same.example/")
    ShortLinkFactory(code="mine1234", owner=user, url="https://same.example/")

    response = upload_json(alice_client, '["anon1234"]')

    assert response.json()["lines"][0]["msg"] == messages.IMPORT_CLAIM_DUPLICATE.format(code="anon1234")
    assert ShortLink.objects.get(code="anon1234").owner is None


# --- bad files ------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "msg"),
    [
        ("[1, 2", messages.IMPORT_UNREADABLE),
        ('{"not": "a list"}', messages.IMPORT_UNREADABLE),
        (b"\xff\xfe\x00b", messages.IMPORT_NOT_UTF8),
        ("", messages.IMPORT_EMPTY),
        ("url,custom\n", messages.IMPORT_EMPTY),
        ("[]", messages.IMPORT_EMPTY),
        ("https://a.example/\x00", messages.IMPORT_UNREADABLE),
    ],
)
def test_unreadable_file_is_refused_whole(alice_client, content, msg):
    response = upload_json(alice_client, content)

    assert_shortener_error(response, 400, msg)
    assert not ShortLink.objects.exists()


def test_missing_file_is_refused(alice_client):
    response = alice_client.post("/s/import", {"_format": "json"})

    assert_shortener_error(response, 400, messages.IMPORT_FILE_MISSING)


def test_too_large_file_is_refused(alice_client, settings):
    settings.SHORTENER_IMPORT_MAX_BYTES = 1024

    response = upload_json(alice_client, "https://a.example/\n" * 100, name="x.csv")

    assert_shortener_error(response, 413, "The file is too large: 1024 bytes at most.")
    assert not ShortLink.objects.exists()


def test_too_many_lines_is_refused(alice_client, settings):
    settings.SHORTENER_IMPORT_MAX_LINES = 3

    response = upload_json(alice_client, "".join(f"https://a.example/{n}\n" for n in range(4)), name="x.csv")

    assert_shortener_error(response, 413, "The file has too many lines: 3 at most.")
    assert not ShortLink.objects.exists()


def test_imports_are_rate_limited(alice_client, settings):
    settings.SHORTENER_IMPORT_RATE_LIMIT = 1

    first = upload_json(alice_client, "https://a.example/\n", name="x.csv")
    second = upload_json(alice_client, "https://b.example/\n", name="x.csv")

    assert first.status_code == status.HTTP_200_OK
    assert_shortener_error(second, 429, any_number(messages.TOO_MANY_IMPORTS))
    assert ShortLink.objects.count() == 1


def test_import_needs_login(client):
    response = upload_json(client, "https://a.example/\n", name="x.csv")

    assert_shortener_error(response, 401, messages.LOGIN_REQUIRED)
    assert not ShortLink.objects.exists()


def test_import_form_needs_the_csrf_token(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)

    response = upload(client, "https://a.example/\n", name="x.csv")

    assert_shortener_error_page(response, 403, messages.CSRF_FAILED)
    assert not ShortLink.objects.exists()


# --- HTML and progress ----------------------------------------------------


def test_import_form_shows_the_report_with_refused_lines(alice_client):
    response = upload(alice_client, "https://a.example/\ntruc\n", name="x.csv")

    page = response.content.decode()
    assert response.status_code == status.HTTP_200_OK
    assert messages.IMPORT_DONE.format(created=1, existing=0, refused=1) in page
    assert "truc is not a valid URL." in page


def test_stats_page_offers_export_and_import(alice_client):
    page = alice_client.get("/s/stats").content.decode()

    assert 'href="/s/export"' in page
    assert 'action="/s/import"' in page
    assert "shortener/import.js" in page


def test_progress_is_written_while_importing_and_readable_by_its_user_only(alice_client, bob_client, monkeypatch):
    monkeypatch.setattr(transfer, "PROGRESS_EVERY", 2)
    seen: list[int] = []
    real_import_one = transfer._import_one

    def import_one_and_look(user_id, item, started_at):
        seen.append(LinkImport.objects.get().done)
        return real_import_one(user_id, item, started_at)

    monkeypatch.setattr(transfer, "_import_one", import_one_and_look)
    content = "".join(f"https://a.example/{n}\n" for n in range(5)) + "truc\n"

    upload_json(alice_client, content, name="x.csv", progress="0f8fad5b-d9cb-469f-a165-70867728950e")
    mine = alice_client.get("/s/import/0f8fad5b-d9cb-469f-a165-70867728950e")
    bobs = bob_client.get("/s/import/0f8fad5b-d9cb-469f-a165-70867728950e", {"_format": "json"})

    assert seen == [0, 0, 2, 2, 4, 4]
    assert mine.json() == {"success": True, "total": 6, "done": 6, "created": 5, "refused": 1, "finished": True}
    assert_shortener_error(bobs, 404, messages.IMPORT_UNKNOWN)
