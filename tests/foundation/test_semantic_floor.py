"""The semantic floors of `make bench` (bench/semantic_floor.py) do the endpoint's own work, no less.

A floor that ran fewer statements, or wrote other bytes, would make every endpoint look slow
next to it; one that ran more would flatter it. Each test asks the real endpoint, builds the
floor from what it recorded and checks that the floor answers the same bytes and leaves the same
mark in the database. No timing is asserted: the ratios are bench/README.md's.
"""

import json

import pytest
from django.utils import timezone

from bench import semantic_floor
from pastes.models import ApiKey as PastesApiKey
from pastes.models import Paste, PasteProfile
from reports.models import ApiKey as ReportsApiKey
from reports.models import Project, Report
from shortener.models import ShortLink

pytestmark = pytest.mark.django_db(transaction=True)  # the floor records the endpoint's own transactions


def wsgi(application) -> tuple[str, bytes]:
    answered = {}

    def start_response(status, headers):
        answered["status"] = status
        answered["headers"] = dict(headers)

    body = b"".join(application({"REQUEST_METHOD": "GET", "PATH_INFO": "/"}, start_response))
    assert answered["headers"]["Content-Length"] == str(len(body))
    return answered["status"], body


def floor_of(request: dict):
    """The endpoint's answer, and the floor built from the same request."""
    run = semantic_floor.capture(request)
    return run, semantic_floor.app(semantic_floor.Replayer([run]))


@pytest.fixture
def reports_key(user):
    project = Project.objects.create(owner=user, name="site.example")
    for n in range(3):
        Report.objects.create(
            owner=user,
            project=project,
            url=f"https://site.example/page/{n}",
            score=90,
            result="good",
            results={"seo": {"title": {"passed": True, "importance": "high", "value": 12, "errors": {}}}},
            status=Report.Status.DONE,
            generated_at=timezone.now(),
        )
    return ReportsApiKey.issue(user=user, name="bench")[1]


@pytest.mark.parametrize("path", ["/api/v1/reports?per_page=25", "first report"])
def test_the_floor_of_a_report_read_answers_the_endpoints_bytes(reports_key, path):
    if path == "first report":
        path = f"/api/v1/reports/{Report.objects.order_by('pk').first().pk}"
    headers = {"Authorization": f"Bearer {reports_key}", "Accept": "application/json"}

    run, floor = floor_of({"path": path, "headers": headers})
    status, body = wsgi(floor)

    assert status == "200 OK"
    assert body == run.body
    assert json.loads(body)["data"]
    # The capture's last run is answered from the kept body (reports/answer_cache.py), as a read
    # under load is: the floor replays that path, the owner's version read and no report.
    statements = [statement.sql for statement in run.statements]
    assert any("reports_ownerreportsversion" in sql for sql in statements)
    assert not any('"reports_report"' in sql for sql in statements)


def test_the_floor_of_a_paste_read_counts_a_view_as_the_endpoint_does(user):
    paste = Paste.objects.create(owner=user, name="a paste", content="print('hello')\n")

    run, floor = floor_of({"path": f"/pastes/paste/@{paste.id}", "headers": {}})
    views_after_endpoint = Paste.objects.get(pk=paste.pk).views
    status, body = wsgi(floor)

    assert (status, body) == ("200 OK", run.body)
    assert json.loads(body)["views"] == views_after_endpoint
    assert Paste.objects.get(pk=paste.pk).views == views_after_endpoint + 1


def test_the_floor_of_a_paste_create_writes_a_new_paste_in_the_endpoints_transaction(user):
    PasteProfile.objects.create(user=user, max_paste_chars=1_000_000)
    key = PastesApiKey.issue(user=user, name="bench")[1]
    body = json.dumps({"name": "bench paste", "content": "print('hello')\n" * 20, "exposure": "unlisted"})
    request = {
        "method": "POST",
        "path": "/pastes/create",
        "headers": {"Authorization": key, "Content-Type": "application/json"},
        "body": body,
    }

    run, floor = floor_of(request)
    pastes_after_endpoint = Paste.objects.count()
    status, answered = wsgi(floor)
    status_again, _ = wsgi(floor)  # a new id each time, as the endpoint makes one

    assert (status, answered) == (semantic_floor.status_line(run.status), run.body)
    assert status_again == status
    assert Paste.objects.count() == pastes_after_endpoint + 2
    sql = [statement.sql for statement in run.statements]
    begin = next(i for i, text in enumerate(sql) if text.startswith(semantic_floor.BEGIN))  # BEGIN IMMEDIATE on SQLite
    assert begin < next(i for i, text in enumerate(sql) if text.startswith("INSERT"))
    assert sql[-1] == semantic_floor.COMMIT


def test_the_floor_of_link_statistics_and_healthz_answers_the_endpoints_bytes(user):
    link = ShortLink.objects.create(code="abcdefgh", url="https://example.com/", owner=user)

    for path in (f"/s/stats/{link.code}?_format=json", "/healthz"):
        run, floor = floor_of({"path": path, "headers": {}})
        status, body = wsgi(floor)

        assert (status, body) == ("200 OK", run.body)
        assert run.statements, path


def test_the_floor_refuses_an_endpoint_whose_bytes_it_cannot_write_again(user, monkeypatch):
    monkeypatch.setattr(semantic_floor, "renderer_of", lambda response, made: lambda: b"{}")

    with pytest.raises(RuntimeError, match="does not write the endpoint's bytes"):
        semantic_floor.capture({"path": "/healthz", "headers": {}})
