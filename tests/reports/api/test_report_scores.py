"""Category scores (issue 21): `scores` in every report answer and the min_score… list filters."""

import pytest
from rest_framework import status
from rest_framework.test import APIClient

from reports.analysis import config, scoring
from reports.models import Report
from tests.reports.factories import ReportFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/reports"
CATEGORIES = ("seo", "performance", "security", "accessibility", "miscellaneous")


def test_an_analysed_report_carries_one_score_per_category_made_from_its_results(owner_client, test_site):
    response = owner_client.post(URL, {"url": test_site.url("/good")})

    assert response.status_code == status.HTTP_201_CREATED
    data = response.json()["data"]
    assert set(data["scores"]) == set(CATEGORIES)
    expected = scoring.category_scores(data["results"], config.importance_weights(), config.rating_bands())
    assert data["scores"] == expected
    report = Report.objects.get()
    assert report.scores == expected
    assert all(0 <= value <= 100 for value in expected.values())


def test_a_category_failing_a_high_check_scores_below_good_and_the_others_stay_perfect(owner_client, user):
    passing = {"passed": True, "importance": "high", "value": None, "errors": {}}
    results = {
        "seo": {
            "title": {"passed": False, "importance": "high", "value": None, "errors": {}},
            **dict.fromkeys(("robots", "noindex", "noindex_header", "meta_description", "link_text"), passing),
        },
        "security": {"hsts": {"passed": True, "importance": "low", "value": None, "errors": {}}},
    }
    report = ReportFactory(owner=user, results=results, score=75)

    scores = owner_client.get(f"{URL}/{report.pk}").json()["data"]["scores"]

    # SEO as Lighthouse weighs it would be 86 (document-title is 1 of 7.04), but a failed high check caps it.
    assert scores == {"seo": 79, "performance": None, "security": 100, "accessibility": None, "miscellaneous": None}


def test_a_report_not_analysed_yet_has_null_scores(owner_client, user):
    report = ReportFactory(
        owner=user, score=None, result="", results={}, generated_at=None, status=Report.Status.QUEUED
    )

    scores = owner_client.get(f"{URL}/{report.pk}").json()["data"]["scores"]

    assert scores == dict.fromkeys(CATEGORIES)


def test_scores_are_in_the_list_too(owner_client, user):
    ReportFactory(owner=user, score_seo=12)

    item = owner_client.get(URL).json()["data"][0]

    assert item["scores"]["seo"] == 12


def test_another_users_report_and_its_scores_stay_hidden(other_client, user):
    report = ReportFactory(owner=user, score_seo=90)

    assert other_client.get(f"{URL}/{report.pk}").status_code == status.HTTP_404_NOT_FOUND
    assert other_client.get(URL, {"min_score_seo": 0}).json()["data"] == []


def test_anonymous_requests_get_no_scores():
    ReportFactory(score_seo=90)

    response = APIClient().get(URL, {"min_score_seo": 0})

    assert response.status_code == status.HTTP_401_UNAUTHORIZED
    assert response.json() == {"message": "Unauthenticated."}


@pytest.mark.parametrize("category", CATEGORIES)
def test_min_score_of_a_category_keeps_the_reports_scoring_at_least_that(owner_client, user, category):
    low = ReportFactory(owner=user, **{f"score_{category}": 40})
    edge = ReportFactory(owner=user, **{f"score_{category}": 70})
    high = ReportFactory(owner=user, **{f"score_{category}": 95})
    ReportFactory(owner=user, score=None, result="", results={}, generated_at=None, status=Report.Status.QUEUED)

    body = owner_client.get(URL, {f"min_score_{category}": 70}).json()
    ids = [item["id"] for item in body["data"]]

    assert ids == [high.pk, edge.pk]
    assert low.pk not in ids
    # The total counts what the filter kept, not the projects' kept count of every report.
    assert (body["meta"]["total"], body["meta"]["total_is_estimate"]) == (2, False)


def test_min_score_filters_on_the_overall_score_and_combines_with_a_category(owner_client, user):
    both = ReportFactory(owner=user, score=90, score_security=90)
    ReportFactory(owner=user, score=90, score_security=50)
    ReportFactory(owner=user, score=40, score_security=90)

    ids = [item["id"] for item in owner_client.get(URL, {"min_score": 80, "min_score_security": 80}).json()["data"]]

    assert ids == [both.pk]


@pytest.mark.parametrize("value", ["abc", "", "1e999x", "[]"])
def test_an_unusable_min_score_falls_back_to_no_filter(owner_client, user, value):
    reports = [ReportFactory(owner=user, score_seo=score) for score in (10, 90)]

    response = owner_client.get(URL, {"min_score_seo": value})

    assert response.status_code == status.HTTP_200_OK
    assert sorted(item["id"] for item in response.json()["data"]) == sorted(report.pk for report in reports)


def test_the_database_holds_each_category_score_to_100(user):
    from django.db import IntegrityError, transaction

    report = ReportFactory(owner=user)
    with pytest.raises(IntegrityError), transaction.atomic():
        Report.objects.filter(pk=report.pk).update(score_accessibility=101)
