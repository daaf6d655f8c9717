import pytest
from django_tasks_db.models import DBTaskResult
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
    assertContains(response, "Images without an alt attribute: /images/photo.jpg, /images/banner.png")
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
    assertContains(
        response,
        f'<td class="field-reports"><a href="/admin/reports/report/?project__id__exact={project.pk}">3</a></td>',
        html=True,
    )


def test_the_report_list_sidebar_names_the_chosen_project_only(admin_client):
    chosen = ProjectFactory(name="chosen.example")
    report = ReportFactory(owner=chosen.owner, project=chosen, url="https://chosen.example/page")
    for n in range(5):
        ReportFactory(url=f"https://other-{n}.example/")

    unfiltered = admin_client.get(CHANGELIST)
    filtered = admin_client.get(CHANGELIST, {"project__id__exact": chosen.pk})
    unknown = admin_client.get(CHANGELIST, {"project__id__exact": "999999"})
    malformed = admin_client.get(CHANGELIST, {"project__id__exact": "x"})

    # No project menu: the sidebar would list every project (50,000 at 10⁶ reports).
    assertNotContains(unfiltered, "?project__id__exact=")
    assert unfiltered.context["cl"].result_count == 6
    assert list(filtered.context["cl"].result_list) == [report]
    assertContains(filtered, "chosen.example")
    assertNotContains(filtered, "other-1.example")
    assert unknown.status_code == malformed.status_code == 200
    assert unknown.context["cl"].result_count == malformed.context["cl"].result_count == 0


@pytest.mark.parametrize("url", [CHANGELIST, "/admin/reports/project/", "/admin/django_tasks_database/dbtaskresult/"])
def test_the_large_lists_are_for_staff_only(client, user, url):
    anonymous = client.get(url)
    client.force_login(user)
    signed_in = client.get(url)

    assert anonymous.status_code == signed_in.status_code == 302
    assert anonymous["Location"].startswith("/admin/login/")


def test_the_task_list_is_newest_first_with_fixed_filters(admin_client, settings):
    from reports.tasks import analyze_report

    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    for report in ReportFactory.create_batch(3):
        analyze_report.enqueue(report.pk, report.analysis_run)
    newest_first = list(DBTaskResult.objects.order_by("-enqueued_at", "-id").values_list("id", flat=True))

    response = admin_client.get("/admin/django_tasks_database/dbtaskresult/")
    by_queue = admin_client.get("/admin/django_tasks_database/dbtaskresult/", {"queue_name": "default"})

    assert response.status_code == 200
    assert [task.id for task in response.context["cl"].result_list] == newest_first
    assert len(newest_first) == 3
    assert response.context["cl"].show_full_result_count is False
    assert [str(spec.title) for spec in response.context["cl"].filter_specs] == ["status", "queue name"]
    assert by_queue.context["cl"].result_count == 3


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


def test_the_webhook_delivery_log_shows_each_delivery_and_hides_secrets(admin_client, user):
    from reports.models import Webhook, WebhookDelivery

    project = ProjectFactory(owner=user, name="shop.example")
    webhook = Webhook.objects.create(
        project=project, url="https://hooks.example/ci", events=["report.done"], secret="whsec_never-shown-1234"
    )
    delivery = WebhookDelivery.objects.create(
        webhook=webhook,
        event="report.done",
        body='{"event":"report.done"}',
        status="failed",
        attempts=5,
        response_status=500,
        error="The receiver answered 500.",
    )

    listed = admin_client.get("/admin/reports/webhookdelivery/")
    shown = admin_client.get(f"/admin/reports/webhookdelivery/{delivery.pk}/change/")
    hook_page = admin_client.get(f"/admin/reports/webhook/{webhook.pk}/change/")

    assertContains(listed, "https://hooks.example/ci")
    assertContains(listed, "Failed")
    assertContains(shown, "The receiver answered 500.")
    assertNotContains(hook_page, "whsec_never-shown-1234")
