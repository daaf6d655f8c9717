import pytest
from pytest_django.asserts import assertContains, assertNotContains

from reports.models import ApiKey, Report
from tests.reports.asserts import assert_error_page
from tests.reports.factories import ProjectFactory, ReportFactory

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/reports/report/"


def test_report_list_shows_url_project_owner_result_score(admin_client, user):
    ReportFactory(owner=user, url="https://shop.example/garden", score=42, project=ProjectFactory(name="shop.example"))

    response = admin_client.get(CHANGELIST)

    assertContains(response, "https://shop.example/garden")
    assertContains(response, "shop.example")
    assertContains(response, "alice")
    assertContains(response, '<td class="field-result">Bad</td>', html=True)
    assertContains(response, '<td class="field-score">42</td>', html=True)


def test_report_list_searches_urls(admin_client):
    ReportFactory(url="https://shop.example/garden")
    ReportFactory(url="https://blog.example/post")

    response = admin_client.get(CHANGELIST, {"q": "garden"})

    assertContains(response, "https://shop.example/garden")
    assertNotContains(response, "https://blog.example/post")


@pytest.mark.parametrize(("params", "shown"), [({"result": "good"}, "good-one"), ({"privacy": "1"}, "private-one")])
def test_report_list_filters_on_result_and_privacy(admin_client, params, shown):
    ReportFactory(url="https://a.example/good-one", score=95)
    ReportFactory(url="https://a.example/private-one", score=10, privacy=1)

    response = admin_client.get(CHANGELIST, params)

    assertContains(response, shown)
    assert response.context["cl"].result_count == 1


def test_report_list_filters_on_project(admin_client):
    report = ReportFactory(url="https://shop.example/one")
    ReportFactory(url="https://blog.example/two")

    response = admin_client.get(CHANGELIST, {"project__id__exact": report.project_id})

    assert list(response.context["cl"].result_list) == [report]


def test_report_page_in_admin_shows_checks_readably_and_no_password_hash(admin_client):
    report = ReportFactory(page_password="open sesame")

    response = admin_client.get(f"/admin/reports/report/{report.pk}/change/")

    assertContains(response, "Image alt texts")
    assertContains(response, "Missing: /images/photo.jpg, /images/banner.png")
    assertContains(response, "1 of 2 passed")
    assertNotContains(response, report.password)
    assertNotContains(response, 'name="results"')


def test_reports_cannot_be_added_in_admin(admin_client):
    response = admin_client.get("/admin/reports/report/add/")

    assert_error_page(response, 403, "Forbidden.")


def test_project_list_shows_report_counts(admin_client):
    project = ProjectFactory(name="shop.example")
    ReportFactory.create_batch(3, owner=project.owner, project=project)

    response = admin_client.get("/admin/reports/project/")

    assertContains(response, "shop.example")
    assertContains(response, '<td class="field-report_count">3</td>', html=True)


def test_api_keys_are_still_in_admin(admin_client, user):
    ApiKey.issue(user=user, name="ci key")

    response = admin_client.get("/admin/reports/apikey/")

    assertContains(response, "ci key")


def test_rerun_analysis_action_analyses_the_selected_reports_again(admin_client, test_site):
    report = ReportFactory(url=test_site.url("/good"), score=1)

    response = admin_client.post(CHANGELIST, {"action": "rerun_analysis", "_selected_action": [report.pk]}, follow=True)

    assertContains(response, "Queued 1 analysis(es).")
    report.refresh_from_db()
    assert report.status == Report.Status.DONE
    assert report.score > 1
    assert report.results["seo"]["title"]["passed"] is True


def test_rerun_analysis_action_shows_the_selected_reports_with_their_status(admin_client, settings):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}  # queued, never run
    selected = ReportFactory.create_batch(2)
    other = ReportFactory()

    response = admin_client.post(
        CHANGELIST, {"action": "rerun_analysis", "_selected_action": [r.pk for r in selected]}, follow=True
    )

    assert [r.pk for r in response.context["cl"].result_list] == sorted((r.pk for r in selected), reverse=True)
    assert other.pk not in [r.pk for r in response.context["cl"].result_list]
    assertContains(response, "Queued 2 analysis(es).")
    assert set(Report.objects.filter(pk__in=[r.pk for r in selected]).values_list("status", flat=True)) == {"queued"}


def test_rerun_analysis_action_shows_a_failure_and_keeps_the_last_results(admin_client, test_site):
    report = ReportFactory(url="http://127.0.0.1:9/gone", score=1)

    response = admin_client.post(CHANGELIST, {"action": "rerun_analysis", "_selected_action": [report.pk]}, follow=True)

    assertContains(response, "Failed")
    report.refresh_from_db()
    assert report.status == Report.Status.FAILED
    assert report.error.startswith("The page could not be analysed")
    assert report.score == 1
