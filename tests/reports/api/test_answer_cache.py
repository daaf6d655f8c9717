"""The reports API's kept answers (reports/answer_cache.py): the same bytes as made anew, and never
read after a write to the owner's reports or projects, whoever makes it."""

import threading
from importlib import import_module

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction

from reports import answer_cache, services
from reports.models import OwnerReportsVersion, Project, Report
from tests.reports.factories import ProjectFactory, ReportFactory

URL = "/api/v1/reports"
# What differs from one answer to the next by design: the rate limit left.
PER_REQUEST_HEADERS = {"X-RateLimit-Remaining"}


def answer_of(response) -> tuple[int, dict, bytes]:
    headers = {name: value for name, value in response.headers.items() if name not in PER_REQUEST_HEADERS}
    return response.status_code, headers, response.content


def kept(client, path: str, django_assert_max_num_queries, **params) -> bytes:
    """Ask twice; the second answer must be the kept one (no report read) and equal the first."""
    made = client.get(path, params)
    with django_assert_max_num_queries(3):  # the key, its rate-limit count, the owner's version
        again = client.get(path, params)
    assert answer_of(again) == answer_of(made)
    return again.content


@pytest.mark.django_db
def test_kept_answers_are_the_bytes_and_headers_made_anew_for_lists_and_shows(
    owner_client, user, django_assert_max_num_queries
):
    first, second = ProjectFactory(owner=user, name="a.example"), ProjectFactory(owner=user, name="b.example")
    second.budget = {"min_score": 90}
    second.save()
    ReportFactory.create_batch(4, owner=user, project=first, score=55, result=Report.Result.DECENT)
    reports = ReportFactory.create_batch(3, owner=user, project=second, score=80, result=Report.Result.GOOD)
    samples = [
        {},
        {"per_page": 25, "sort_by": "url", "sort": "asc"},
        {"per_page": 10, "page": 2},
        {"result": "good", "project": "b.example"},
        {"search": "example", "sort_by": "generated_at", "sort": "desc"},
        {"per_page": "not a number", "sort_by": "nonsense"},
    ]
    for params in samples:
        kept(owner_client, URL, django_assert_max_num_queries, **params)
    for report in reports:
        kept(owner_client, f"{URL}/{report.pk}", django_assert_max_num_queries)


@pytest.mark.django_db
def test_the_other_user_and_anonymous_never_get_the_owners_kept_answer(
    owner_client, other_client, api_client, user, other_user
):
    report = ReportFactory(owner=user)
    ReportFactory(owner=other_user, url="https://other.example/")
    for _ in range(2):
        owner_list, owner_show = owner_client.get(URL), owner_client.get(f"{URL}/{report.pk}")

    other_list = other_client.get(URL)
    assert [r["url"] for r in other_list.json()["data"]] == ["https://other.example/"]
    assert other_list.content != owner_list.content
    assert other_client.get(f"{URL}/{report.pk}").status_code == 404
    assert api_client.get(URL).status_code == 401
    assert api_client.get(f"{URL}/{report.pk}").status_code == 401
    assert owner_show.json()["data"]["id"] == report.pk


def listed(client) -> dict[int, dict]:
    return {report["id"]: report for report in client.get(URL).json()["data"]}


@pytest.mark.django_db
def test_every_kind_of_write_is_seen_by_the_next_read(owner_client, other_client, user, other_user):
    project = ProjectFactory(owner=user, name="a.example")
    report, moved = ReportFactory.create_batch(2, owner=user, project=project, score=40)
    show = f"{URL}/{report.pk}"
    listed(owner_client), owner_client.get(show)  # kept

    # The API's own write.
    assert owner_client.patch(show, {"privacy": 1}, format="json").status_code == 200
    assert owner_client.get(show).json()["data"]["privacy"] == 1
    assert listed(owner_client)[report.pk]["privacy"] == 1

    # What the analysis worker writes: a bulk update, no save() and no signal.
    Report.objects.filter(pk=report.pk).update(score=93, result=Report.Result.GOOD)
    assert owner_client.get(show).json()["data"]["score"] == 93
    assert listed(owner_client)[report.pk]["result"] == "good"

    # The project's name and budget, which every report's answer shows.
    Project.objects.filter(pk=project.pk).update(name="renamed.example")
    assert owner_client.get(show).json()["data"]["project"] == "renamed.example"
    project.refresh_from_db()
    project.budget = {"min_score": 95}
    project.save(update_fields=["budget"])
    assert owner_client.get(show).json()["data"]["budget"]["passed"] is False

    # A report moved to another owner (the admin can) leaves one list and enters the other.
    listed(other_client)
    Report.objects.filter(pk=moved.pk).update(owner=other_user)
    assert moved.pk not in listed(owner_client)
    assert moved.pk in listed(other_client)

    # A new report, by the service the API and the browser share.
    created = ReportFactory(owner=user, project=project)
    assert created.pk in listed(owner_client)

    # Deletes: one report, then its project with the rest (a cascade in the database).
    owner_client.delete(show)
    assert owner_client.get(show).status_code == 404
    assert report.pk not in listed(owner_client)
    services.project_delete(project=Project.objects.get(pk=project.pk))
    assert listed(owner_client) == {}


@pytest.mark.django_db
def test_a_body_over_the_limit_is_made_anew_each_time(owner_client, user, monkeypatch, django_assert_num_queries):
    ReportFactory.create_batch(2, owner=user)
    monkeypatch.setattr(answer_cache, "MAX_BODY_BYTES", 100)
    owner_client.get(URL)
    # key, rate-limit count, version, count, page: the reports were read again
    with django_assert_num_queries(5):
        again = owner_client.get(URL)
    assert len(again.json()["data"]) == 2


@pytest.mark.django_db
def test_versions_rise_with_writes_and_a_deleted_owner_takes_theirs(user, other_user):
    def version(owner) -> int | None:
        return OwnerReportsVersion.objects.filter(owner=owner).values_list("version", flat=True).first()

    assert version(user) is None
    report = ReportFactory(owner=user)
    created = version(user)
    Report.objects.filter(pk=report.pk).update(score=1)
    updated = version(user)
    Project.objects.filter(pk=report.project_id).update(alert_email="ops@example.com")  # not in an answer
    assert version(user) == updated
    Report.objects.filter(pk=report.pk).delete()
    assert created < updated < version(user)

    ReportFactory(owner=other_user)
    get_user_model().objects.filter(pk=other_user.pk).delete()
    assert not OwnerReportsVersion.objects.filter(owner_id=other_user.pk).exists()


@pytest.mark.django_db
def test_all_the_version_triggers_exist():
    names = import_module("reports.migrations.0019_owner_reports_version").TRIGGER_NAMES
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT DISTINCT tgname FROM pg_trigger WHERE tgname LIKE 'reports_version_%%'")
        else:
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'reports_version_%'")
        assert sorted(row[0] for row in cursor.fetchall()) == sorted(names)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_read_during_an_uncommitted_write_is_not_kept_past_its_commit(owner_client, user):
    report = ReportFactory(owner=user, score=10)
    show = f"{URL}/{report.pk}"
    owner_client.get(show)
    written, commit = threading.Event(), threading.Event()

    def write() -> None:
        try:
            with transaction.atomic():
                Report.objects.filter(pk=report.pk).update(score=77)
                written.set()
                commit.wait(10)
        finally:
            connection.close()

    writer = threading.Thread(target=write)
    writer.start()
    assert written.wait(10)
    during = owner_client.get(show).json()["data"]["score"]  # made anew or kept: the committed state
    commit.set()
    writer.join()

    assert during == 10
    assert owner_client.get(show).json()["data"]["score"] == 77
    assert owner_client.get(show).json()["data"]["score"] == 77
