import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from reports.models import Project, Report
from tests.reports.factories import ProjectFactory, ReportFactory

pytestmark = pytest.mark.django_db


def test_a_user_has_one_project_per_name():
    project = ProjectFactory(name="shop.example")

    with pytest.raises(IntegrityError), transaction.atomic():
        Project.objects.create(owner=project.owner, name="shop.example")


def test_password_privacy_without_a_password_is_refused_by_the_database():
    report = ReportFactory()

    with pytest.raises(IntegrityError), transaction.atomic():
        Report.objects.filter(pk=report.pk).update(privacy=Report.Privacy.PASSWORD)


def test_a_password_without_password_privacy_is_refused_by_the_database():
    report = ReportFactory(privacy=Report.Privacy.PRIVATE)

    with pytest.raises(IntegrityError), transaction.atomic():
        Report.objects.filter(pk=report.pk).update(password="md5$x$y")


def test_score_above_100_is_refused_by_the_database():
    report = ReportFactory()

    with pytest.raises(IntegrityError), transaction.atomic():
        Report.objects.filter(pk=report.pk).update(score=101)


def test_unknown_result_is_refused_by_the_database():
    report = ReportFactory()

    with pytest.raises(IntegrityError), transaction.atomic():
        Report.objects.filter(pk=report.pk).update(result="great")


def test_deleting_a_user_deletes_their_projects_and_reports(user):
    ReportFactory(owner=user)

    user.delete()

    assert not Project.objects.exists()
    assert not Report.objects.exists()


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("https://Shop.Example:8443/a?b", "shop.example"),
        ("http://127.0.0.1:8000/", "127.0.0.1"),
        ("https://[::1]/", "::1"),
    ],
)
def test_project_name_is_the_lowercased_host_without_port(url, name):
    assert Project.name_for_url(url) == name


def test_report_in_another_users_project_fails_validation(user, other_user):
    report = ReportFactory.build(owner=user, project=ProjectFactory(owner=other_user))

    with pytest.raises(ValidationError) as error:
        report.full_clean()

    assert "project" in error.value.message_dict
