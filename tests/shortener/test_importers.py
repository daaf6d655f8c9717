"""Imports from Shlink, Bitly, YOURLS and Kutt (issue 46, item 6), on POST /s/import and manage.py import_links."""

import datetime
import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from rest_framework import status

from shortener import messages
from shortener.fastpath import flush_visits
from shortener.models import LinkTag, ShortLink
from tests.shortener.asserts import assert_shortener_error
from tests.shortener.conftest import JSON
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "shortener_imports"
UTC = datetime.UTC


def upload(client, name: str, content: bytes | None = None):
    data = (FIXTURES / name).read_bytes() if content is None else content
    return client.post("/s/import", {"file": SimpleUploadedFile(name, data), **JSON})


def links(user) -> dict[str, tuple]:
    return {
        link.code: (link.url, link.created_at, link.imported_visits, link.counter, link.is_custom)
        for link in ShortLink.objects.filter(owner=user)
    }


def tags_of(code: str) -> list[str]:
    return sorted(LinkTag.objects.filter(link__code=code).values_list("name", flat=True))


def test_shlink_csv_keeps_codes_dates_visits_and_tags_and_reports_a_taken_code(alice_client, user, other_user):
    ShortLinkFactory(code="taken", url="https://someone.else/", owner=other_user, is_custom=True)

    response = upload(alice_client, "shlink.csv")

    body = response.json()
    assert response.status_code == status.HTTP_200_OK
    assert (body["created"], body["existing"], body["refused"]) == (2, 0, 1)
    assert body["lines"][2] == {
        "line": 4,
        "status": "refused",
        "msg": messages.IMPORT_CODE_CONFLICT.format(code="taken"),
    }
    assert links(user) == {
        "docs": (
            "https://shlink.io/documentation/",
            datetime.datetime(2023, 3, 14, 8, 26, 53, tzinfo=UTC),
            42,
            0,
            True,
        ),
        "abc123": ("https://example.com/a?x=1&y=2", datetime.datetime(2024, 1, 2, 10, tzinfo=UTC), 0, 0, True),
    }
    assert tags_of("docs") == ["docs", "summer-sale"]
    assert ShortLink.objects.get(code="taken").url == "https://someone.else/"  # never overwritten


def test_bitly_csv_takes_the_code_from_the_bitlink_and_refuses_a_bad_date(alice_client, user):
    response = upload(alice_client, "bitly.csv")

    body = response.json()
    assert (body["created"], body["refused"]) == (2, 1)
    assert body["lines"][2]["msg"] == messages.IMPORT_DATE_INVALID.format(value="yesterday")
    assert links(user)["3xYzAbC"] == (
        "https://www.example.com/spring-launch",
        datetime.datetime(2021, 4, 1, 12, 30, tzinfo=UTC),
        1280,
        0,
        True,
    )
    assert tags_of("3xYzAbC") == ["campaign", "spring"]
    assert links(user)["4qRsTuV"][2] == 3


@pytest.mark.parametrize("name", ["yourls_url.csv", "yourls_url.sql"])
def test_yourls_table_as_csv_or_sql(alice_client, user, name):
    response = upload(alice_client, name)

    assert response.json()["refused"] == 0
    imported = links(user)
    assert imported["ozh"] == ("http://ozh.org/", datetime.datetime(2009, 8, 12, 13, 37, tzinfo=UTC), 1337, 0, True)
    assert imported["yourls"][2] == 12
    if name.endswith(".sql"):
        assert imported["quote"][0] == "https://example.com/it's?a=1,2"  # escapes and commas inside quotes


def test_kutt_api_json(alice_client, user):
    response = upload(alice_client, "kutt.json")

    assert response.json()["created"] == 2
    assert links(user)["kutt-docs"] == (
        "https://github.com/thedevs-network/kutt",
        datetime.datetime(2020, 9, 22, 18, 31, 5, 123000, tzinfo=UTC),
        512,
        0,
        True,
    )


def test_a_kutt_list_without_the_envelope_is_read_too(alice_client, user):
    rows = json.loads((FIXTURES / "kutt.json").read_text())["data"]

    response = upload(alice_client, "links.json", json.dumps(rows).encode())

    assert response.json()["created"] == 2


def test_importing_the_same_file_twice_finds_the_links_already_there(alice_client, user):
    upload(alice_client, "kutt.json")

    again = upload(alice_client, "kutt.json").json()

    assert (again["created"], again["existing"], again["refused"]) == (0, 2, 0)
    assert ShortLink.objects.count() == 2


def test_imported_visits_are_shown_apart_from_the_unique_visits(client, alice_client, user):
    upload(alice_client, "kutt.json")
    client.get("/s/kutt-docs", HTTP_USER_AGENT="Mozilla/5.0 Firefox/140.0")
    flush_visits()

    stats = client.get("/s/stats/kutt-docs", JSON).json()

    assert stats["imported_visits"] == 512
    assert stats["counter"] == 1  # the visit above; the imported 512 stay apart
    page = client.get("/s/stats/kutt-docs", HTTP_ACCEPT="text/html")
    assert b"Visits before the import" in page.content and b"512" in page.content
    assert "imported_visits" not in client.get("/s/stats/Xy7Qz", JSON).json()  # none: Lstu's shape


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"createdAt,shortCode,longUrl,visits\n2020-01-01T00:00:00Z,ok1,https://a.example/,-3\n", "visit count"),
        (b"createdAt,shortCode,longUrl,visits\n2999-01-01T00:00:00Z,ok2,https://a.example/,1\n", "creation date"),
        (b"createdAt,shortCode,longUrl,visits\n,bad code!,https://a.example/,1\n", "shortened text"),
        (b"createdAt,shortCode,longUrl,visits\n,ok3,javascript:alert(1),1\n", "not a valid URL"),
        (b"createdAt,shortCode,longUrl,visits\n,stats,https://a.example/,1\n", "can't be"),
    ],
)
def test_a_bad_line_refuses_only_itself(alice_client, user, content, message):
    good = b",fine,https://fine.example/,5\n"

    body = upload(alice_client, "shlink.csv", content + good).json()

    assert (body["created"], body["refused"]) == (1, 1)
    assert message in body["lines"][0]["msg"]
    assert list(ShortLink.objects.values_list("code", flat=True)) == ["fine"]


@pytest.mark.parametrize(
    "content",
    [
        b"INSERT INTO `yourls_url` VALUES ('a','https://a.example/'",
        b"INSERT INTO yourls_url VALUES (garbage);",
        b"INSERT INTO yourls_url VALUES ('a', 'b') ('c');",
    ],
)
def test_unreadable_sql_is_refused_whole(alice_client, user, content):
    assert_shortener_error(upload(alice_client, "dump.sql", content), 400, messages.IMPORT_SQL_UNREADABLE)
    assert not ShortLink.objects.exists()


def test_the_same_limits_as_every_import(alice_client, user, settings):
    settings.SHORTENER_IMPORT_MAX_LINES = 1
    assert_shortener_error(upload(alice_client, "kutt.json"), 413, messages.IMPORT_TOO_MANY_LINES.format(limit=1))
    settings.SHORTENER_IMPORT_MAX_LINES = 100
    settings.SHORTENER_IMPORT_MAX_BYTES = 100
    assert_shortener_error(upload(alice_client, "kutt.json"), 413, messages.IMPORT_TOO_LARGE.format(limit=100))
    assert not ShortLink.objects.exists()


def test_imports_need_login(client):
    assert_shortener_error(upload(client, "kutt.json"), 401, messages.LOGIN_REQUIRED)


def test_the_shortener_s_own_formats_still_import(alice_client, user):
    body = upload(alice_client, "ours.csv", b"url,custom\nhttps://own.example/,own\n").json()

    assert body["created"] == 1
    assert ShortLink.objects.get().imported_visits == 0


def test_the_command_imports_a_file_for_a_user(user, capsys):
    call_command("import_links", str(FIXTURES / "yourls_url.sql"), "--user", user.username)

    assert "3 created, 0 already there, 0 refused." in capsys.readouterr().out
    assert ShortLink.objects.filter(owner=user).count() == 3


def test_the_command_reports_refused_lines(user, capsys):
    call_command("import_links", str(FIXTURES / "bitly.csv"), "--user", user.username)

    output = capsys.readouterr()
    assert "2 created, 0 already there, 1 refused." in output.out
    assert "line 4: The creation date 'yesterday'" in output.err


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        (["--user", "nobody"], "There is no user 'nobody'."),
        (["--user", "alice", "--", "/nonexistent/file"], "Cannot read"),
    ],
)
def test_the_command_s_errors(user, arguments, error):
    path = [str(FIXTURES / "kutt.json")] if "--" not in arguments else []
    with pytest.raises(CommandError, match=error):
        call_command("import_links", *path, *[arg for arg in arguments if arg != "--"])
