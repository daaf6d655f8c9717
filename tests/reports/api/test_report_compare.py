"""GET /api/v1/reports/{id}/compare?with={other}: what changed in a report since another one."""

import copy

import pytest
from rest_framework import status

from reports.models import Report
from tests.reports.factories import SAMPLE_RESULTS, ReportFactory

pytestmark = pytest.mark.django_db

NOT_FOUND = {"message": "Resource not found.", "status": 404}


def results_with(**passed: bool) -> dict:
    """SAMPLE_RESULTS with the given checks passed or failed."""
    results = copy.deepcopy(SAMPLE_RESULTS)
    for checks in results.values():
        for key, check in checks.items():
            if key in passed:
                check["passed"] = passed[key]
    return results


@pytest.fixture
def pair(user):
    """Before: title passes, image_keywords fails. Now: title fails, image_keywords passes, htst still fails."""
    before = ReportFactory(owner=user, score=74, results=results_with(title=True, image_keywords=False))
    now = ReportFactory(
        owner=user,
        project=before.project,
        url=before.url,
        score=70,
        results=results_with(title=False, image_keywords=True),
    )
    return now, before


def url(report, other) -> str:
    return f"/api/v1/reports/{report.pk}/compare?with={other.pk}"


def statuses(body) -> dict[str, str]:
    return {check["check"]: check["status"] for check in body["data"]["checks"]}


def test_compare_answers_score_deltas_and_each_checks_change(owner_client, pair):
    now, before = pair

    response = owner_client.get(url(now, before))

    assert response.status_code == status.HTTP_200_OK
    data = response.json()["data"]
    assert data["report"]["id"] == now.pk
    assert data["with"]["id"] == before.pk
    assert data["score"] == {"report": 70, "with": 74, "delta": -4}
    # Only the SEO checks changed: one high check fails in each, so the category keeps its score.
    assert data["categories"]["seo"] == {"report": 50, "with": 50, "delta": 0}
    assert data["categories"]["security"]["delta"] == 0
    assert statuses(response.json()) == {
        "title": "regressed",
        "image_keywords": "improved",
        "page_size": "unchanged",
        "htst": "unchanged",
        "charset": "unchanged",
    }
    assert data["checks"][0]["check"] == "title"  # regressions first
    assert data["summary"] == {"regressed": 1, "improved": 1, "unchanged": 3}


def test_category_deltas_follow_the_checks(owner_client, user):
    before = ReportFactory(owner=user, results=results_with(htst=True))
    now = ReportFactory(owner=user, project=before.project, results=results_with(htst=False))

    data = owner_client.get(url(now, before)).json()["data"]

    assert data["categories"]["security"] == {"report": 99, "with": 100, "delta": -1}
    assert statuses({"data": data})["htst"] == "regressed"


def test_a_check_missing_on_one_side_counts_as_passed_there(owner_client, user):
    results = results_with()
    results["seo"]["new_check"] = {"passed": False, "importance": "low", "value": None, "errors": {}}
    before = ReportFactory(owner=user)
    now = ReportFactory(owner=user, project=before.project, results=results)

    assert statuses(owner_client.get(url(now, before)).json())["new_check"] == "regressed"
    assert statuses(owner_client.get(url(before, now)).json())["new_check"] == "improved"


def test_markdown_format_gives_a_pull_request_summary(owner_client, pair):
    now, before = pair

    response = owner_client.get(url(now, before) + "&format=markdown")

    assert response.status_code == status.HTTP_200_OK
    assert response["Content-Type"].startswith("text/markdown")
    text = response.content.decode()
    assert f"compared with [#{before.pk}](http://testserver/reports/{before.pk})" in text
    assert "| **Score** | 74 | 70 | **-4** |" in text
    assert "1 regressed, 1 improved, 3 unchanged." in text
    assert "**Regressed**\n\n- Title (SEO, high importance)" in text
    assert "**Improved**\n\n- Image alt texts (SEO, high importance)" in text


@pytest.mark.parametrize("privacy", [Report.Privacy.PUBLIC, Report.Privacy.PRIVATE])
def test_another_owners_reports_are_not_found(owner_client, other_client, pair, other_user, privacy):
    now, before = pair
    Report.objects.filter(pk__in=[now.pk, before.pk]).update(privacy=privacy)
    theirs = ReportFactory(owner=other_user)

    # The API reads only the key owner's reports, whatever their privacy, as GET /reports/{id} does.
    for response in (
        other_client.get(url(now, before)),
        owner_client.get(url(now, theirs)),
        owner_client.get(url(theirs, now)),
    ):
        assert response.status_code == status.HTTP_404_NOT_FOUND
        assert response.json() == NOT_FOUND


def test_unknown_ids_are_not_found(owner_client, pair):
    now, _ = pair

    response = owner_client.get(f"/api/v1/reports/{now.pk}/compare?with=999999")

    assert response.status_code == status.HTTP_404_NOT_FOUND
    assert response.json() == NOT_FOUND
    assert owner_client.get(f"/api/v1/reports/999999/compare?with={now.pk}").json() == NOT_FOUND


def test_anonymous_is_unauthenticated(api_client, pair):
    now, before = pair

    response = api_client.get(url(now, before))

    assert response.status_code == status.HTTP_401_UNAUTHORIZED
    assert response.json() == {"message": "Unauthenticated."}


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("", "The with field is required."),
        ("?with=", "The with field is required."),
        ("?with=abc", "The with must be a report id."),
    ],
)
def test_a_missing_or_bad_with_is_422(owner_client, pair, query, message):
    now, _ = pair

    response = owner_client.get(f"/api/v1/reports/{now.pk}/compare{query}")

    assert response.status_code == status.HTTP_422_UNPROCESSABLE_ENTITY
    assert response.json() == {"message": {"with": [message]}, "status": 422}


def test_a_report_without_results_cannot_be_compared(owner_client, pair, user):
    now, _ = pair
    queued = ReportFactory(
        owner=user,
        project=now.project,
        status=Report.Status.QUEUED,
        score=None,
        result="",
        results={},
        generated_at=None,
    )

    response = owner_client.get(url(now, queued))

    assert response.status_code == status.HTTP_422_UNPROCESSABLE_ENTITY
    assert response.json() == {"message": {"with": [f"Report {queued.pk} has no results yet."]}, "status": 422}
