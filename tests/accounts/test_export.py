"""/accounts/export/ (issue 44, item 3): everything a user has, as one streamed JSON download, without secrets."""

import datetime
import json

import pytest
from django.contrib.auth.hashers import make_password
from django.db import connection
from django.test.utils import CaptureQueriesContext

from pastes.models import ApiKey as PastesApiKey
from pastes.models import PasteProfile
from reports.models import ApiKey as ReportsApiKey
from reports.models import Audit
from shortener.models import ApiKey as ShortenerApiKey
from shortener.models import DailyVisits
from tests.pastes.factories import PasteFactory
from tests.reports.factories import ReportFactory
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

URL = "/accounts/export/"


def download(client) -> tuple[object, dict]:
    response = client.post(URL)
    assert response.status_code == 200
    assert response.streaming
    return response, json.loads(b"".join(response.streaming_content))


def holdings(owner, n: int) -> dict:
    """n of every kind for `owner`, each link with two days of visits; the raw keys made."""
    raw = {}
    for index in range(n):
        PasteFactory(owner=owner, name=f"paste {index}", content=f"content {index}\n")
        link = ShortLinkFactory(owner=owner, code=f"{owner.username[:3]}{index:03d}", counter=index)
        for day in (1, 2):
            DailyVisits.objects.create(link=link, day=datetime.date(2026, 11, day), visits=index + day)
        report = ReportFactory(owner=owner)
        Audit.objects.create(owner=owner, project=report.project, url=f"https://{report.project.name}/", max_pages=5)
        raw[f"reports{index}"] = ReportsApiKey.issue(user=owner, name=f"key {index}")[1]
    raw["pastes"] = PastesApiKey.issue(user=owner, name="editor", scope="read")[1]
    raw["shortener"] = ShortenerApiKey.issue(user=owner, name="bot")[1]
    return raw


def test_anonymous_is_sent_to_sign_in(client):
    for response in (client.get(URL), client.post(URL)):
        assert response.status_code == 302
        assert response["Location"] == "/accounts/login/?next=/accounts/export/"


def test_the_page_says_what_the_file_holds(client, user):
    client.force_login(user)

    response = client.get(URL)

    assert response.status_code == 200
    assert "Download my data (JSON)" in response.content.decode()


def test_the_download_is_one_json_attachment_of_everything_the_owner_has(client, user, other_user):
    PasteProfile.objects.create(user=user, bio="Hello", avatar="https://images.example/a.png", badges=["staff"])
    raw_keys = holdings(user, 2)
    ShortLinkFactory(owner=user, code="locked", password_hash=make_password("link secret"))
    PasteFactory(owner=user, name="vault", password=make_password("paste secret"))
    holdings(other_user, 1)
    client.force_login(user)

    response, data = download(client)

    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"].startswith('attachment; filename="alice-')
    assert "no-store" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]
    assert data["format"] == "webtools-account-export/1"
    assert data["user"]["username"] == "alice"
    assert data["profile"] == {
        "bio": "Hello",
        "avatar": "https://images.example/a.png",
        "badges": ["staff"],
        "max_paste_chars": PasteProfile.objects.get(user=user).max_paste_chars,
    }
    assert [(p["name"], p["content"], p["password_protected"]) for p in data["pastes"]] == [
        ("paste 0", "content 0\n", False),
        ("paste 1", "content 1\n", False),
        ("vault", PasteFactory._meta.model.objects.get(name="vault").content, True),
    ]
    links = {link["code"]: link for link in data["short_links"]}
    assert set(links) == {"ali000", "ali001", "locked"}
    assert links["ali001"]["counter"] == 1
    assert links["ali001"]["daily_visits"] == [
        {"day": "2026-11-01", "visits": 2},
        {"day": "2026-11-02", "visits": 3},
    ]
    assert links["locked"]["daily_visits"] == [] and links["locked"]["password_protected"] is True
    assert len(data["reports"]) == 2 and data["reports"][0]["results"] and data["reports"][0]["score"] == 85
    assert len(data["projects"]) == 2 and len(data["audits"]) == 2
    assert sorted((key["interface"], key["name"]) for key in data["api_keys"]) == [
        ("pastes", "editor"),
        ("reports", "key 0"),
        ("reports", "key 1"),
        ("shortener", "bot"),
    ]
    text = json.dumps(data)
    # Nothing of the other user's, no key, digest or password hash.
    assert "bob" not in text and "bob000" not in text
    for raw in raw_keys.values():
        assert raw not in text
    assert "hashed_key" not in text and "pbkdf2" not in text and "md5$" not in text


def test_another_user_gets_their_own_data_only(client, user, other_user):
    holdings(user, 1)
    client.force_login(other_user)

    _, data = download(client)

    assert data["user"]["username"] == "bob"
    assert data["pastes"] == data["short_links"] == data["reports"] == data["api_keys"] == []


def queries_of_an_export(client) -> int:
    with CaptureQueriesContext(connection) as captured:
        download(client)
    return len(captured.captured_queries)


def test_the_number_of_queries_does_not_grow_with_the_items(client, user, django_assert_max_num_queries):
    holdings(user, 3)
    client.force_login(user)
    with_three = queries_of_an_export(client)
    holdings(user, 0)
    for index in range(3, 30):
        PasteFactory(owner=user)
        link = ShortLinkFactory(owner=user, code=f"more{index}")
        DailyVisits.objects.create(link=link, day=datetime.date(2026, 11, 3), visits=1)
        report = ReportFactory(owner=user)
        Audit.objects.create(owner=user, project=report.project, url="https://x.example/", max_pages=5)
        ReportsApiKey.issue(user=user)

    with django_assert_max_num_queries(with_three):
        _, data = download(client)

    assert len(data["pastes"]) == len(data["short_links"]) == len(data["audits"]) == 30
