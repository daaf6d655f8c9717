"""Budgets: PATCH /api/v1/projects/{project} sets one, and every report answer says whether it is met."""

import pytest
from rest_framework import status

from reports.models import Project
from tests.reports.factories import ProjectFactory, ReportFactory

pytestmark = pytest.mark.django_db

NOT_FOUND = {"message": "Resource not found.", "status": 404}
BUDGET = {"min_score": 80, "categories": {"seo": 90}, "checks": ["title", "image_keywords"]}


@pytest.fixture
def project(user):
    return ProjectFactory(owner=user, name="shop.example")


def patch(client, name, body):
    return client.patch(f"/api/v1/projects/{name}", body, format="json")


def test_owner_sets_a_budget_and_an_alert_email(owner_client, project):
    response = patch(owner_client, "SHOP.example", {"budget": BUDGET, "alert_email": "ops@shop.example"})

    assert response.status_code == status.HTTP_200_OK
    data = response.json()["data"]
    assert data["budget"] == BUDGET
    assert data["alert_email"] == "ops@shop.example"
    project.refresh_from_db()
    assert project.budget == BUDGET
    assert project.alert_email == "ops@shop.example"


def test_patch_changes_only_the_fields_given_and_null_clears(owner_client, project):
    patch(owner_client, "shop.example", {"budget": BUDGET, "alert_email": "ops@shop.example"})

    patch(owner_client, "shop.example", {"alert_email": None})
    project.refresh_from_db()
    assert (project.budget, project.alert_email) == (BUDGET, "")

    response = patch(owner_client, "shop.example", {"budget": None})
    project.refresh_from_db()
    assert project.budget == {}
    assert response.json()["data"]["budget"] is None


def test_another_owners_project_is_not_found(other_client, project):
    response = patch(other_client, "shop.example", {"budget": BUDGET})

    assert response.status_code == status.HTTP_404_NOT_FOUND
    assert response.json() == NOT_FOUND
    project.refresh_from_db()
    assert project.budget == {}


def test_anonymous_is_unauthenticated(api_client, project):
    response = patch(api_client, "shop.example", {"budget": BUDGET})

    assert response.status_code == status.HTTP_401_UNAUTHORIZED
    assert response.json() == {"message": "Unauthenticated."}


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({"budget": "strict"}, {"budget": ["The budget must be an object."]}),
        (
            {"budget": {"min_score": 101}},
            {"budget.min_score": ["The budget.min_score must be an integer between 0 and 100."]},
        ),
        (
            {"budget": {"min_score": True}},
            {"budget.min_score": ["The budget.min_score must be an integer between 0 and 100."]},
        ),
        (
            {"budget": {"categories": {"speed": 50}}},
            {
                "budget.categories.speed": [
                    "Unknown category; known: seo, performance, security, accessibility, miscellaneous."
                ]
            },
        ),
        (
            {"budget": {"categories": {"seo": -1}}},
            {"budget.categories.seo": ["The minimum must be an integer between 0 and 100."]},
        ),
        ({"budget": {"checks": "title"}}, {"budget.checks": ["The budget.checks must be a list of check names."]}),
        ({"budget": {"checks": ["no_such_check"]}}, {"budget.checks": ["Unknown checks: no_such_check."]}),
        (
            {"budget": {"max_score": 3}},
            {"budget": ["The budget has unknown keys: max_score; known: min_score, categories, checks."]},
        ),
        ({"alert_email": "not-an-address"}, {"alert_email": ["The alert email must be a valid email address."]}),
    ],
)
def test_bad_input_is_422_and_changes_nothing(owner_client, project, body, errors):
    response = patch(owner_client, "shop.example", body)

    assert response.status_code == status.HTTP_422_UNPROCESSABLE_ENTITY
    assert response.json() == {"message": errors, "status": 422}
    project.refresh_from_db()
    assert (project.budget, project.alert_email) == ({}, "")


def test_a_body_that_is_not_json_is_400(owner_client, project):
    response = owner_client.generic(
        "PATCH", "/api/v1/projects/shop.example", "{not json", content_type="application/json"
    )

    assert response.status_code == status.HTTP_400_BAD_REQUEST
    assert response.json()["status"] == 400


def test_reports_without_a_budget_carry_null(owner_client, user, project):
    report = ReportFactory(owner=user, project=project)

    assert owner_client.get(f"/api/v1/reports/{report.pk}").json()["data"]["budget"] is None


def test_every_report_answer_says_whether_the_budget_is_met(owner_client, user, project):
    # SAMPLE_RESULTS: title passes, image_keywords (high, SEO) and htst (low, security) fail.
    report = ReportFactory(owner=user, project=project, score=74)
    patch(owner_client, "shop.example", {"budget": BUDGET})

    shown = owner_client.get(f"/api/v1/reports/{report.pk}").json()["data"]["budget"]
    listed = owner_client.get("/api/v1/reports").json()["data"][0]["budget"]

    assert shown == listed
    assert shown["passed"] is False
    assert [(failure["rule"], failure["name"], failure["actual"]) for failure in shown["failures"]] == [
        ("min_score", "score", 74),
        ("category", "seo", 50),
        ("check", "image_keywords", False),
    ]
    assert shown["failures"][0]["message"] == "The score is 74, below the minimum of 80."


def test_a_met_budget_passes(owner_client, user, project):
    report = ReportFactory(owner=user, project=project, score=74)
    Project.objects.filter(pk=project.pk).update(budget={"min_score": 70, "checks": ["title"]})

    assert owner_client.get(f"/api/v1/reports/{report.pk}").json()["data"]["budget"] == {"passed": True, "failures": []}


def test_a_report_not_analysed_yet_has_no_verdict(owner_client, user, project):
    Project.objects.filter(pk=project.pk).update(budget={"min_score": 70})
    report = ReportFactory(
        owner=user, project=project, status="queued", score=None, result="", results={}, generated_at=None
    )

    assert owner_client.get(f"/api/v1/reports/{report.pk}").json()["data"]["budget"] is None
