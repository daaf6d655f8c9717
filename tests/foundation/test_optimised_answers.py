"""The endpoints issue 51 made faster answer byte for byte as before (modulo JSON key order).

tests/foundation/optimised_answers/<database>.json hold the answers of the code before the change: status,
content type and body of a sample of requests to A's report list and report, B's create and read,
and C's statistics, on data made here at a frozen time. Ids the database or the random generator
chose are replaced by names in order of appearance; nothing else is normalised. To record them
again (only when an answer is meant to change): OPTIMISED_ANSWERS_RECORD=1 pytest this file.
"""

import base64
import datetime
import json
import os
import re
from pathlib import Path

import pytest
import time_machine
from django.db import connection
from rest_framework.test import APIClient

from pastes.models import Paste, PasteProfile
from reports.models import ApiKey as ReportsApiKey
from reports.models import Project, Report
from shortener.models import LinkTag, VisitBreakdown
from tests.pastes.factories import PasteFactory, issue_key
from tests.reports.factories import ReportFactory
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

ANSWERS = Path(__file__).parent / "optimised_answers"
NOW = datetime.datetime(2026, 11, 20, 12, 30, 15, 250000, tzinfo=datetime.UTC)
PASTE_ID = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{12}(?![A-Za-z0-9])")


class Names:
    """Stable names for ids the run chose: the same id is the same name everywhere in the answers."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.pastes: set[str] = set()  # the paste ids seen: only these are renamed in text

    def name(self, kind: str, value: object) -> str:
        return self.names.setdefault(f"{kind}:{value}", f"<{kind} {sum(k.startswith(kind) for k in self.names)}>")

    def body(self, value: object, key: str = "") -> object:
        if isinstance(value, dict):
            return {k: self.body(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.body(item, key) for item in value]
        if key == "id" and isinstance(value, int):
            return self.name("report", value)
        if isinstance(value, str):
            return self.text(value)
        return value

    def cursor(self, match: re.Match) -> str:
        # A page cursor is base64 of [page, signature, key]; the key ends with the last row's id.
        token = match[2]
        page, signature, key = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        return f"{match[1]}={json.dumps([page, signature, [*key[:-1], self.name('report', key[-1])]])}"

    def text(self, text: str) -> str:
        text = re.sub(r"\b(after|before)=([A-Za-z0-9_-]+)", self.cursor, text)
        text = re.sub(r"/api/v1/reports/(\d+)", lambda m: "/api/v1/reports/" + self.name("report", m[1]), text)
        return PASTE_ID.sub(lambda m: self.name("paste", m[0]) if m[0] in self.pastes else m[0], text)


def _answer(names: Names, response) -> dict:
    content_type = response.get("Content-Type", "")
    raw = response.content.decode()
    body = names.body(json.loads(raw)) if "json" in content_type and raw else names.text(raw)
    return {"status": response.status_code, "content_type": content_type, "body": body}


def _reports(names: Names, user, other_user) -> dict:
    _, key = ReportsApiKey.issue(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}", HTTP_ACCEPT="application/json")
    budgets = [{}, {"min_score": 90}, {"min_score": 50, "categories": {"seo": 60}, "checks": ["title"]}]
    projects = [
        Project.objects.create(owner=user, name=f"site{n}.example", budget=budget) for n, budget in enumerate(budgets)
    ]
    reports = []
    for n in range(32):
        report = ReportFactory(
            owner=user,
            project=projects[n % 3],
            url=f"https://{projects[n % 3].name}/page/{n:02d}",
            score=30 + (n * 7) % 70,
            generated_at=NOW - datetime.timedelta(hours=n),
            privacy=Report.Privacy.PRIVATE if n % 5 == 0 else Report.Privacy.PUBLIC,
        )
        names.name("report", report.pk)
        reports.append(report)
    Report.objects.filter(pk=reports[1].pk).update(status=Report.Status.FAILED, error="The page answered 500.")
    Report.objects.filter(pk=reports[2].pk).update(status=Report.Status.QUEUED)
    others = ReportFactory(owner=other_user)
    queries = [
        "",
        "?per_page=25",
        "?per_page=25&page=2",
        "?per_page=10&page=4",
        "?per_page=25&sort_by=url&sort=asc",
        "?per_page=25&sort_by=id&sort=desc&result=good",
        "?per_page=25&sort_by=generated_at&sort=asc&result=decent&project=site1.example",
        "?search=page/1",
        "?per_page=1000",
        "?sort_by=nothing",
        "?result=great",
    ]
    answers = {
        f"GET /api/v1/reports{query}": _answer(names, client.get(f"/api/v1/reports{query}")) for query in queries
    }
    for report in (*reports[:4], others):
        answers[f"GET report {names.name('report', report.pk)}"] = _answer(
            names, client.get(f"/api/v1/reports/{report.pk}")
        )
    answers["GET a report that is not there"] = _answer(names, client.get("/api/v1/reports/999999999"))
    answers["GET without a key"] = _answer(names, APIClient().get("/api/v1/reports"))
    return answers


def _pastes(names: Names, user, other_user) -> dict:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=issue_key(user))
    answers = {}
    bodies = {
        "plain": {"name": "bench paste", "content": "print('hello')\n" * 20, "exposure": "unlisted"},
        "every field": {
            "name": "Secret",
            "content": "s3cr3t",
            "expiration": "1 day",
            "exposure": "private",
            "burn_after_read": True,
            "syntax": "python",
        },
        "password": {"name": "locked", "content": "x", "password": "hunter2"},
        "files": {
            "name": "two",
            "files": [{"filename": "a.py", "content": "x = 1"}, {"filename": "b.md", "content": "# b"}],
        },
        "no name": {"content": "x"},
        "bad expiration": {"name": "ab", "content": "x", "expiration": "forever"},
    }
    for label, body in bodies.items():
        response = client.post("/pastes/create", body, format="json")
        if response.status_code == 200:
            names.pastes.add(response.json()["id"])
            names.name("paste", response.json()["id"])
        answers[f"POST /pastes/create {label}"] = _answer(names, response)
    answers["POST /pastes/create not JSON"] = _answer(
        names, client.post("/pastes/create", "x", content_type="text/csv")
    )
    answers["POST /pastes/create anonymous"] = _answer(
        names, APIClient().post("/pastes/create", bodies["plain"], format="json")
    )
    PasteProfile.objects.filter(user=user).update(max_paste_chars=400)
    # An expired paste no longer counts: the create drops it before summing.
    PasteFactory(
        owner=user,
        content="z" * 1000,
        expiration=Paste.Expiration.ONE_HOUR,
        expires_at=NOW - datetime.timedelta(hours=1),
        created_at=NOW - datetime.timedelta(hours=2),
    )
    answers["POST /pastes/create over the quota"] = _answer(
        names, client.post("/pastes/create", {"name": "big", "content": "y" * 300}, format="json")
    )
    fits = client.post("/pastes/create", {"name": "fits", "content": "y" * 80}, format="json")
    names.pastes.add(fits.json()["id"])
    answers["POST /pastes/create within the quota"] = _answer(names, fits)

    public = PasteFactory(owner=other_user, name="public", content="Hello, world!", syntax="text")
    unlisted = PasteFactory(owner=other_user, name="unlisted", content="u", exposure=Paste.Exposure.UNLISTED)
    burning = PasteFactory(owner=other_user, name="burning", content="once", burn_after_read=True)
    expiring = PasteFactory(
        owner=other_user,
        name="expiring",
        content="soon",
        expiration=Paste.Expiration.ONE_DAY,
        expires_at=NOW + datetime.timedelta(days=1),
    )
    for paste in (public, unlisted, burning, expiring):
        names.pastes.add(paste.pk)
        names.name("paste", paste.pk)
    readers = {"anonymous": APIClient(), "owner": client}
    for label, paste in (("public", public), ("unlisted", unlisted), ("expiring", expiring)):
        for reader, reader_client in readers.items():
            answers[f"GET {label} paste as {reader}"] = _answer(names, reader_client.get(f"/pastes/paste/@{paste.pk}"))
    for attempt in ("first", "second"):
        answers[f"GET burn-after-read paste, {attempt} read"] = _answer(
            names, APIClient().get(f"/pastes/paste/@{burning.pk}")
        )
    answers["GET a paste that is not there"] = _answer(names, APIClient().get("/pastes/paste/@AAAAAAAAAAAA"))
    answers["GET a paste id that cannot be"] = _answer(names, APIClient().get("/pastes/paste/@nope"))
    return answers


def _stats(names: Names, user) -> dict:
    plain = ShortLinkFactory(code="plain", owner=user, url="https://example.com/plain", counter=7)
    tagged = ShortLinkFactory(
        code="tagged",
        owner=user,
        url="https://example.com/tagged",
        counter=3,
        expires_at=NOW + datetime.timedelta(days=3),
        max_visits=100,
        imported_visits=12,
    )
    LinkTag.objects.bulk_create([LinkTag(link=tagged, name="news"), LinkTag(link=tagged, name="alpha")])
    ShortLinkFactory(code="gone", owner=user, deleted_at=NOW)
    today = NOW.date()
    rows = []
    for days_ago in range(3):
        day = today - datetime.timedelta(days=days_ago)
        rows += [
            VisitBreakdown(link=plain, day=day, dimension="referrers", name="news.example", visits=2 + days_ago),
            VisitBreakdown(link=plain, day=day, dimension="referrers", name="Direct", visits=1),
            VisitBreakdown(link=plain, day=day, dimension="agents", name="Firefox\x1fLinux\x1fDesktop", visits=3),
            VisitBreakdown(link=plain, day=day, dimension="countries", name="FR", visits=days_ago + 1),
            VisitBreakdown(link=plain, day=day, dimension="bots", name="Googlebot", visits=1),
        ]
    VisitBreakdown.objects.bulk_create(rows)
    client = APIClient()
    paths = [
        "/s/stats/plain?_format=json",
        "/s/stats/plain?_format=json&from=2026-11-19&to=2026-11-20",
        "/s/stats/tagged?_format=json",
        "/s/stats/plain",
        "/s/stats/gone?_format=json",
        "/s/stats/never?_format=json",
        "/s/stats/plain?_format=json&from=2026-13-01",
    ]
    return {f"GET {path}": _answer(names, client.get(path)) for path in paths}


def test_optimised_endpoints_answer_as_before(user, other_user):
    names = Names()
    with time_machine.travel(NOW, tick=False):
        answers = {**_reports(names, user, other_user), **_pastes(names, user, other_user), **_stats(names, user)}
    if os.environ.get("OPTIMISED_ANSWERS_DUMP"):
        Path(os.environ["OPTIMISED_ANSWERS_DUMP"]).write_text(json.dumps(answers, indent=1, sort_keys=True))
    # Per database: the list's page cursors carry the sort key, which PostgreSQL's collation lengthens.
    expected_file = ANSWERS / f"{connection.vendor}.json"
    if os.environ.get("OPTIMISED_ANSWERS_RECORD"):
        expected_file.write_text(json.dumps(answers, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    expected = json.loads(expected_file.read_text())
    assert answers.keys() == expected.keys()
    for request, answer in answers.items():
        assert answer == expected[request], request
