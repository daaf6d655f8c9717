import pytest
from django.contrib.auth.hashers import check_password
from rest_framework import status

from reports.models import Report
from tests.reports.asserts import Fields, StartsWith, assert_reports_error
from tests.reports.factories import SAMPLE_RESULTS, ReportFactory

pytestmark = pytest.mark.django_db


def detail(report: Report) -> str:
    return f"/api/v1/reports/{report.pk}"


def test_patch_changes_the_privacy(owner_client, user):
    report = ReportFactory(owner=user)

    response = owner_client.patch(detail(report), {"privacy": 1})

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["status"] == 200
    assert response.json()["data"]["privacy"] == 1
    report.refresh_from_db()
    assert report.privacy == Report.Privacy.PRIVATE


def test_put_behaves_like_patch(owner_client, user):
    report = ReportFactory(owner=user)

    response = owner_client.put(detail(report), {"privacy": 1})

    assert response.status_code == status.HTTP_200_OK
    report.refresh_from_db()
    assert report.privacy == Report.Privacy.PRIVATE
    assert report.url.startswith("https://")


def test_update_sets_a_hashed_password_with_password_privacy(owner_client, user):
    report = ReportFactory(owner=user)

    response = owner_client.patch(detail(report), {"privacy": 2, "password": "open sesame"})

    assert response.json()["data"]["password"] is True
    assert "open sesame" not in response.content.decode()
    report.refresh_from_db()
    assert check_password("open sesame", report.password)


def test_update_changes_the_password_of_a_protected_report(owner_client, user):
    report = ReportFactory(owner=user, page_password="old one")

    owner_client.patch(detail(report), {"password": "new one"})

    report.refresh_from_db()
    assert report.privacy == Report.Privacy.PASSWORD
    assert check_password("new one", report.password)


def test_update_to_password_privacy_keeps_an_existing_password(owner_client, user):
    report = ReportFactory(owner=user, page_password="kept")

    response = owner_client.patch(detail(report), {"privacy": 2})

    assert response.status_code == status.HTTP_200_OK
    report.refresh_from_db()
    assert check_password("kept", report.password)


def test_update_to_password_privacy_without_any_password_is_422_and_changes_nothing(owner_client, user):
    report = ReportFactory(owner=user)

    response = owner_client.patch(detail(report), {"privacy": 2})

    assert_reports_error(response, 422, {"password": ["The password field is required when privacy is 2."]})
    report.refresh_from_db()
    assert report.privacy == Report.Privacy.PUBLIC


def test_update_away_from_password_privacy_forgets_the_password(owner_client, user):
    report = ReportFactory(owner=user, page_password="gone")

    response = owner_client.patch(detail(report), {"privacy": 0})

    assert response.json()["data"]["password"] is False
    report.refresh_from_db()
    assert report.password == ""


def test_update_password_without_password_privacy_is_ignored(owner_client, user):
    report = ReportFactory(owner=user, privacy=Report.Privacy.PRIVATE)

    owner_client.patch(detail(report), {"password": "ignored"})

    report.refresh_from_db()
    assert report.privacy == Report.Privacy.PRIVATE
    assert report.password == ""


def test_update_without_results_leaves_the_results_alone(owner_client, user):
    report = ReportFactory(owner=user)
    generated_at = report.generated_at

    owner_client.patch(detail(report), {"privacy": 1, "results": 0})

    report.refresh_from_db()
    assert report.results == SAMPLE_RESULTS
    assert report.generated_at == generated_at


def test_update_with_results_runs_the_analysis_again(owner_client, user, test_site):
    report = ReportFactory(owner=user, url=test_site.url("/good"), score=3)
    generated_at = report.generated_at

    response = owner_client.patch(detail(report), {"results": 1})

    assert response.status_code == status.HTTP_200_OK
    report.refresh_from_db()
    assert report.generated_at > generated_at
    assert report.results != SAMPLE_RESULTS
    assert report.results["seo"]["title"]["passed"] is True
    assert report.score > 3
    assert response.json()["data"]["score"] == report.score
    assert ("GET", "/good") in test_site.requests()


def test_update_with_results_and_privacy_changes_both(owner_client, user, test_site):
    report = ReportFactory(owner=user, url=test_site.url("/good"))

    owner_client.put(detail(report), {"results": "1", "privacy": "1"})

    report.refresh_from_db()
    assert report.privacy == Report.Privacy.PRIVATE
    assert report.results != SAMPLE_RESULTS


def test_update_whose_analysis_fails_is_422_and_keeps_the_last_results_with_status_failed(
    owner_client, user, test_site
):
    report = ReportFactory(owner=user, url="http://127.0.0.1:9/gone")
    before = Report.objects.values("score", "result", "results", "generated_at").get(pk=report.pk)

    response = owner_client.patch(detail(report), {"results": 1})

    assert_reports_error(response, 422, {"url": [StartsWith("The page could not be analysed: ")]})
    report.refresh_from_db()
    assert Report.objects.values("score", "result", "results", "generated_at").get(pk=report.pk) == before
    assert report.status == Report.Status.FAILED
    assert report.error == response.json()["message"]["url"][0]


@pytest.mark.parametrize(
    ("data", "field"),
    [({"privacy": 5}, "privacy"), ({"results": "maybe"}, "results"), ({"password": "x" * 200}, "password")],
)
def test_update_rejects_invalid_values_with_422(owner_client, user, data, field):
    report = ReportFactory(owner=user, page_password="old")
    stored = Report.objects.values().get(pk=report.pk)

    response = owner_client.patch(detail(report), data)

    assert_reports_error(response, 422, Fields(field))
    assert Report.objects.values().get(pk=report.pk) == stored


def test_update_of_another_users_report_is_not_found_and_changes_nothing(owner_client, other_user):
    report = ReportFactory(owner=other_user)

    response = owner_client.patch(detail(report), {"privacy": 1})

    assert_reports_error(response, 404)
    report.refresh_from_db()
    assert report.privacy == Report.Privacy.PUBLIC


def test_update_without_a_key_is_unauthenticated(api_client, user):
    report = ReportFactory(owner=user)

    response = api_client.patch(detail(report), {"privacy": 1})

    assert_reports_error(response, 401)
    report.refresh_from_db()
    assert report.privacy == Report.Privacy.PUBLIC


def test_update_of_an_unknown_report_is_not_found(owner_client, user):
    ReportFactory(owner=user, id=424241)

    response = owner_client.patch("/api/v1/reports/424242", {"privacy": 1})

    assert_reports_error(response, 404)
    assert not Report.objects.filter(pk=424242).exists()
    assert Report.objects.get(pk=424241).privacy == Report.Privacy.PUBLIC


def test_update_of_a_report_deleted_meanwhile_is_not_found(owner_client, user, monkeypatch):
    from reports.views.reports import ReportViewSet

    report = ReportFactory(owner=user)
    get_object = ReportViewSet.get_object

    def get_object_then_deleted_by_a_parallel_request(view):
        found = get_object(view)
        Report.objects.filter(pk=found.pk).delete()
        return found

    monkeypatch.setattr(ReportViewSet, "get_object", get_object_then_deleted_by_a_parallel_request)

    response = owner_client.patch(detail(report), {"privacy": 1})

    assert_reports_error(response, 404)
