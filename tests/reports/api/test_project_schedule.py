"""Schedules: PATCH /api/v1/projects/{project} with `schedule`, shown with next_run_at and last_run_at."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from rest_framework import status

from reports.models import Project
from tests.reports.asserts import assert_reports_error
from tests.reports.factories import ProjectFactory

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 24, 3, 0, tzinfo=UTC)
INVALID = "The schedule must be one of none, daily, weekly."


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@pytest.fixture
def project(user):
    return ProjectFactory(owner=user, name="shop.example")


def patch(client, body, name="shop.example"):
    return client.patch(f"/api/v1/projects/{name}", body, format="json")


@pytest.mark.parametrize(("schedule", "period"), [("daily", timedelta(days=1)), ("weekly", timedelta(days=7))])
def test_owner_sets_a_schedule_first_due_one_period_from_now(owner_client, project, schedule, period):
    with time_machine.travel(NOW, tick=False):
        response = patch(owner_client, {"schedule": schedule})

    assert response.status_code == status.HTTP_200_OK
    data = response.json()["data"]
    assert (data["schedule"], data["next_run_at"], data["last_run_at"]) == (schedule, stamp(NOW + period), None)
    project.refresh_from_db()
    assert (project.schedule, project.next_run_at, project.last_run_at) == (schedule, NOW + period, None)


def test_the_project_list_shows_the_schedule(owner_client, project):
    with time_machine.travel(NOW, tick=False):
        patch(owner_client, {"schedule": "weekly"})

    item = owner_client.get("/api/v1/projects").json()["data"][0]

    assert item["schedule"] == "weekly"
    assert item["next_run_at"] == stamp(NOW + timedelta(days=7))
    assert item["last_run_at"] is None


def test_a_project_without_a_schedule_shows_none(owner_client, project):
    item = owner_client.get("/api/v1/projects").json()["data"][0]

    assert (item["schedule"], item["next_run_at"], item["last_run_at"]) == ("none", None, None)


def test_changing_the_schedule_recomputes_the_due_time(owner_client, project):
    with time_machine.travel(NOW, tick=False):
        patch(owner_client, {"schedule": "daily"})
    later = NOW + timedelta(hours=5)

    with time_machine.travel(later, tick=False):
        response = patch(owner_client, {"schedule": "weekly"})

    assert response.json()["data"]["next_run_at"] == stamp(later + timedelta(days=7))
    project.refresh_from_db()
    assert project.next_run_at == later + timedelta(days=7)


def test_sending_the_same_schedule_again_keeps_the_due_time(owner_client, project):
    with time_machine.travel(NOW, tick=False):
        patch(owner_client, {"schedule": "daily"})

    with time_machine.travel(NOW + timedelta(hours=20), tick=False):
        response = patch(owner_client, {"schedule": "daily", "alert_email": "ops@shop.example"})

    assert response.json()["data"]["next_run_at"] == stamp(NOW + timedelta(days=1))
    project.refresh_from_db()
    assert (project.next_run_at, project.alert_email) == (NOW + timedelta(days=1), "ops@shop.example")


@pytest.mark.parametrize("off", ["none", None])
def test_none_or_null_stops_the_schedule(owner_client, project, off):
    patch(owner_client, {"schedule": "daily"})

    response = patch(owner_client, {"schedule": off})

    assert response.status_code == status.HTTP_200_OK
    assert (response.json()["data"]["schedule"], response.json()["data"]["next_run_at"]) == ("none", None)
    project.refresh_from_db()
    assert (project.schedule, project.next_run_at) == ("none", None)


def test_a_patch_without_schedule_leaves_it(owner_client, project):
    patch(owner_client, {"schedule": "weekly"})
    project.refresh_from_db()
    due = project.next_run_at

    patch(owner_client, {"budget": {"min_score": 50}})

    project.refresh_from_db()
    assert (project.schedule, project.next_run_at) == ("weekly", due)


def test_another_owners_project_is_not_found_and_keeps_its_schedule(other_client, project):
    response = patch(other_client, {"schedule": "daily"})

    assert_reports_error(response, 404)
    project.refresh_from_db()
    assert (project.schedule, project.next_run_at) == ("none", None)


def test_anonymous_is_unauthenticated_and_changes_nothing(api_client, project):
    response = patch(api_client, {"schedule": "daily"})

    assert_reports_error(response, 401)
    project.refresh_from_db()
    assert project.schedule == "none"


@pytest.mark.parametrize("value", ["hourly", "Daily", "", " daily", 1, 0, True, ["daily"], {"every": "day"}, 1.5])
def test_a_bad_schedule_is_422_and_changes_nothing(owner_client, project, value):
    patch(owner_client, {"schedule": "weekly"})
    project.refresh_from_db()
    before = (project.schedule, project.next_run_at)

    response = patch(owner_client, {"schedule": value})

    assert_reports_error(response, 422, {"schedule": [INVALID]})
    project.refresh_from_db()
    assert (project.schedule, project.next_run_at) == before


def test_a_bad_schedule_beside_a_good_budget_changes_neither(owner_client, project):
    response = patch(owner_client, {"schedule": "hourly", "budget": {"min_score": 90}})

    assert_reports_error(response, 422, {"schedule": [INVALID]})
    project.refresh_from_db()
    assert (project.schedule, project.budget) == ("none", {})


def test_the_database_refuses_a_schedule_without_a_due_time(project):
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Project.objects.filter(pk=project.pk).update(schedule="daily")
