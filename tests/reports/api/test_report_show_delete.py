import pytest
from rest_framework import status

from reports.models import Project, Report
from tests.reports.asserts import assert_reports_error
from tests.reports.factories import ReportFactory

pytestmark = pytest.mark.django_db


def test_show_answers_the_report_in_a_data_envelope(owner_client, user):
    report = ReportFactory(owner=user)

    response = owner_client.get(f"/api/v1/reports/{report.id}")

    assert response.status_code == status.HTTP_200_OK
    body = response.json()
    assert body["status"] == 200
    assert body["data"]["id"] == report.id
    assert body["data"]["url"] == report.url
    assert body["data"]["results"] == report.results


def test_show_ignores_the_lists_filters(owner_client, user):
    report = ReportFactory(owner=user, score=90)

    response = owner_client.get(f"/api/v1/reports/{report.id}", {"result": "bad", "search": "nowhere"})

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["data"]["id"] == report.id


def test_show_accepts_a_trailing_slash(owner_client, user):
    report = ReportFactory(owner=user)

    response = owner_client.get(f"/api/v1/reports/{report.id}/")

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["data"]["id"] == report.id


def test_show_never_reveals_the_password(owner_client, user):
    report = ReportFactory(owner=user, page_password="hunter2-secret")

    response = owner_client.get(f"/api/v1/reports/{report.id}")

    assert response.json()["data"]["password"] is True
    assert "hunter2-secret" not in response.content.decode()
    assert report.password not in response.content.decode()


def test_show_of_another_users_report_is_not_found(owner_client, other_user):
    report = ReportFactory(owner=other_user)

    response = owner_client.get(f"/api/v1/reports/{report.id}")

    assert_reports_error(response, 404)


def test_show_without_a_key_is_unauthenticated(api_client, user):
    report = ReportFactory(owner=user)

    response = api_client.get(f"/api/v1/reports/{report.id}")

    assert_reports_error(response, 401)


@pytest.mark.parametrize("report_id", ["999999", "abc", "99999999999999999999999999"])
def test_show_of_an_unknown_id_is_not_found(owner_client, report_id):
    response = owner_client.get(f"/api/v1/reports/{report_id}")

    assert_reports_error(response, 404)


def test_delete_removes_the_report_and_answers_what_was_deleted(owner_client, user):
    report = ReportFactory(owner=user)

    response = owner_client.delete(f"/api/v1/reports/{report.id}")

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"id": report.id, "object": "report", "deleted": True, "status": 200}
    assert not Report.objects.filter(pk=report.pk).exists()


def test_delete_keeps_the_project(owner_client, user):
    report = ReportFactory(owner=user)

    owner_client.delete(f"/api/v1/reports/{report.id}")

    assert Project.objects.filter(pk=report.project_id).exists()


def test_delete_of_another_users_report_is_not_found_and_keeps_it(owner_client, other_user):
    report = ReportFactory(owner=other_user)

    response = owner_client.delete(f"/api/v1/reports/{report.id}")

    assert_reports_error(response, 404)
    assert Report.objects.filter(pk=report.pk).exists()


def test_delete_without_a_key_is_unauthenticated_and_keeps_the_report(api_client, user):
    report = ReportFactory(owner=user)

    response = api_client.delete(f"/api/v1/reports/{report.id}")

    assert_reports_error(response, 401)
    assert Report.objects.filter(pk=report.pk).exists()


def test_delete_twice_is_not_found_the_second_time(owner_client, user):
    report = ReportFactory(owner=user)
    owner_client.delete(f"/api/v1/reports/{report.id}")

    response = owner_client.delete(f"/api/v1/reports/{report.id}")

    assert_reports_error(response, 404)
    assert not Report.objects.filter(pk=report.pk).exists()
