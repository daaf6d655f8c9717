"""/reports/<id>/compare?with=<other>: the comparison page, with each report's privacy honoured."""

import copy

import pytest
from pytest_django.asserts import assertContains, assertNotContains, assertRedirects

from reports.models import Report
from tests.reports.factories import SAMPLE_RESULTS, ReportFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair(user):
    results = copy.deepcopy(SAMPLE_RESULTS)
    results["seo"]["title"]["passed"] = False
    before = ReportFactory(owner=user, score=74)
    now = ReportFactory(owner=user, project=before.project, url=before.url, score=70, results=results)
    return now, before


def compare_url(report, other) -> str:
    return f"/reports/{report.pk}/compare?with={other.pk}"


def test_anyone_sees_the_comparison_of_public_reports(client, pair):
    now, before = pair

    response = client.get(compare_url(now, before))

    assertContains(response, f"Report #{now.pk}</a>")
    assertContains(response, '<td data-testid="score-delta">-4</td>', html=False)
    assertContains(response, "1 regressed")
    assertContains(response, 'data-testid="check-title"')
    assertNotContains(response, 'data-testid="check-charset"')  # unchanged checks are left out


def test_the_report_page_links_to_the_comparison_with_the_previous_analysis(client, pair):
    now, before = pair

    response = client.get(f"/reports/{now.pk}")

    assertContains(response, f'href="/reports/{now.pk}/compare?with={before.pk}"')


@pytest.mark.parametrize("private", ["now", "before"])
def test_a_private_report_is_not_found_except_for_its_owner(client, pair, user, private):
    now, before = pair
    Report.objects.filter(pk=(now if private == "now" else before).pk).update(privacy=Report.Privacy.PRIVATE)

    assert client.get(compare_url(now, before)).status_code == 404

    client.force_login(user)
    response = client.get(compare_url(now, before))
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]


def test_a_password_protected_report_asks_for_its_password_first(client, pair):
    now, _ = pair
    locked = ReportFactory(owner=now.owner, project=now.project, page_password="s3cret-pass")

    response = client.get(compare_url(now, locked))

    assertRedirects(response, f"/reports/{locked.pk}", fetch_redirect_response=False)
    client.post(f"/reports/{locked.pk}", {"password": "s3cret-pass"})
    assert client.get(compare_url(now, locked)).status_code == 200


@pytest.mark.parametrize("query", ["", "?with=", "?with=abc", "?with=999999"])
def test_a_missing_or_unknown_other_report_is_not_found(client, pair, query):
    now, _ = pair

    assert client.get(f"/reports/{now.pk}/compare{query}").status_code == 404
