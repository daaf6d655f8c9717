import pytest
from django.contrib.auth.hashers import make_password
from pytest_django.asserts import assertContains, assertNotContains, assertRedirects

from reports.models import Report
from tests.reports.asserts import assert_error_page, assert_method_not_allowed
from tests.reports.factories import ReportFactory

pytestmark = pytest.mark.django_db


def page_url(report: Report) -> str:
    return f"/reports/{report.pk}"


def test_public_report_is_shown_to_anyone(client):
    report = ReportFactory(score=85, url="https://shop.example/garden")

    response = client.get(page_url(report))

    assert response.status_code == 200
    assertContains(response, "https://shop.example/garden")
    assertContains(response, '<span class="gauge-score" data-testid="score">85</span>', html=True)
    assertContains(response, "Good")


@pytest.mark.parametrize(
    ("rendering", "said"),
    [
        ({"document": "source"}, "checked as served, without running scripts"),
        ({"document": "rendered", "render_ms": 2100}, "checked as rendered by a browser"),
        ({"document": "source", "render_error": "Playwright is not installed"}, "rendering failed: Playwright is"),
        (
            {"document": "source", "render_skipped": "Chromium is not installed (REPORTS_RENDER=auto)"},
            "without running scripts (Chromium is not installed (REPORTS_RENDER=auto))",
        ),
    ],
)
def test_report_page_says_which_document_the_checks_read(client, rendering, said):
    report = ReportFactory(rendering=rendering)

    response = client.get(page_url(report))

    assertContains(response, said)


def test_report_page_of_a_queued_report_says_so_and_shows_no_score(client):
    report = ReportFactory(
        status=Report.Status.QUEUED, score=None, result="", results={}, generated_at=None, url="https://a.example/"
    )

    response = client.get(page_url(report))

    assert response.status_code == 200
    assertContains(response, "Analysis queued: reload this page in a few seconds to see its results.")
    assertNotContains(response, 'data-testid="score"')
    assertNotContains(response, "This report has no checks.")


def test_report_page_of_a_running_rerun_says_so_above_the_last_results(client):
    report = ReportFactory(status=Report.Status.RUNNING, score=85)

    response = client.get(page_url(report))

    assertContains(response, "Analysis running: reload this page in a few seconds to see the new results.")
    assertContains(response, '<span class="gauge-score" data-testid="score">85</span>', html=True)


def test_report_page_of_a_failed_analysis_shows_the_cause(client):
    report = ReportFactory(status=Report.Status.FAILED, error="The page could not be analysed: timed out.")

    response = client.get(page_url(report))

    assertContains(response, "<strong>The last analysis failed.</strong> The page could not be analysed: timed out.")
    assert response.content.decode().count("could not be analysed") == 1


def test_report_page_groups_checks_by_category_with_pass_fail_and_evidence(client):
    report = ReportFactory()

    response = client.get(page_url(report))

    for category in ("SEO", "Performance", "Security", "Miscellaneous"):
        assertContains(response, category)
    assertContains(response, "Image alt texts")
    assertContains(response, "/images/photo.jpg")
    assertContains(response, "HSTS")
    assertContains(response, "Passed")
    assertContains(response, "Failed")


def test_report_page_escapes_stored_evidence(client):
    results = {"seo": {"title": {"passed": False, "importance": "high", "value": "<script>x()</script>", "errors": {}}}}
    report = ReportFactory(results=results)

    response = client.get(page_url(report))

    assertNotContains(response, "<script>x()</script>")
    assertContains(response, "&lt;script&gt;x()&lt;/script&gt;")


def test_unknown_report_is_not_found(client):
    response = client.get("/reports/999999")

    assert_error_page(response, 404, "Not found.")


def test_private_report_is_not_found_for_anonymous_visitors(client):
    report = ReportFactory(privacy=Report.Privacy.PRIVATE)

    response = client.get(page_url(report))

    assert_error_page(response, 404, "Not found.")
    assertNotContains(response, report.url, status_code=404)


def test_private_report_is_not_found_for_another_signed_in_user(client, other_user):
    report = ReportFactory(privacy=Report.Privacy.PRIVATE)
    client.force_login(other_user)

    response = client.get(page_url(report))

    assert_error_page(response, 404, "Not found.")
    assertNotContains(response, report.url, status_code=404)


def test_private_report_is_shown_to_its_signed_in_owner(client, user):
    report = ReportFactory(owner=user, privacy=Report.Privacy.PRIVATE)
    client.force_login(user)

    response = client.get(page_url(report))

    assertContains(response, report.url)
    assert "no-store" in response["Cache-Control"]


def test_password_report_asks_for_the_password_without_showing_the_report(client):
    report = ReportFactory(page_password="open sesame")

    response = client.get(page_url(report))

    assertContains(response, "This report is password-protected")
    assertContains(response, 'name="csrfmiddlewaretoken"')
    assertNotContains(response, report.url)


def test_wrong_password_says_so_and_keeps_the_report_hidden(client):
    report = ReportFactory(page_password="open sesame")

    response = client.post(page_url(report), {"password": "guess"})

    assertContains(response, "The password is incorrect.")
    assertNotContains(response, report.url)


def test_right_password_unlocks_the_report_for_the_session(client):
    report = ReportFactory(page_password="open sesame")

    response = client.post(page_url(report), {"password": "open sesame"})

    assertRedirects(response, page_url(report), fetch_redirect_response=False)
    assertContains(client.get(page_url(report)), report.url)


def test_unlocking_one_report_does_not_unlock_another(client):
    report = ReportFactory(page_password="open sesame")
    other = ReportFactory(page_password="open sesame")
    client.post(page_url(report), {"password": "open sesame"})

    response = client.get(page_url(other))

    assertContains(response, "This report is password-protected")


def test_changing_the_password_locks_an_unlocked_session_again(client):
    report = ReportFactory(page_password="open sesame")
    client.post(page_url(report), {"password": "open sesame"})
    Report.objects.filter(pk=report.pk).update(password=make_password("new secret"))

    response = client.get(page_url(report))

    assertContains(response, "This report is password-protected")


def test_password_report_is_shown_to_its_signed_in_owner_without_a_password(client, user):
    report = ReportFactory(owner=user, page_password="open sesame")
    client.force_login(user)

    response = client.get(page_url(report))

    assertContains(response, report.url)


def test_password_form_is_protected_against_csrf(user):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    report = ReportFactory(page_password="open sesame")

    response = client.post(page_url(report), {"password": "open sesame"})

    assertContains(response, "CSRF verification failed", status_code=403)
    assertContains(client.get(page_url(report)), "This report is password-protected")


def test_password_attempts_are_rate_limited_even_for_the_right_password(client, settings):
    settings.REPORTS_PAGE_PASSWORD_ATTEMPTS = 2
    report = ReportFactory(page_password="open sesame")
    client.post(page_url(report), {"password": "a"})
    client.post(page_url(report), {"password": "b"})

    response = client.post(page_url(report), {"password": "open sesame"})

    assert response.status_code == 429
    assertContains(response, "Too many attempts", status_code=429)
    assert int(response["Retry-After"]) > 0
    assertContains(client.get(page_url(report)), "This report is password-protected")


def test_password_attempts_are_counted_per_report(client, settings):
    settings.REPORTS_PAGE_PASSWORD_ATTEMPTS = 1
    report = ReportFactory(page_password="open sesame")
    other = ReportFactory(page_password="open sesame")
    client.post(page_url(report), {"password": "wrong"})

    response = client.post(page_url(other), {"password": "open sesame"})

    assertRedirects(response, page_url(other), fetch_redirect_response=False)
    assertContains(client.get(page_url(other)), other.url)


def test_password_longer_than_the_limit_is_refused_with_a_message(client):
    report = ReportFactory(page_password="open sesame")

    response = client.post(page_url(report), {"password": "x" * 500})

    assertContains(response, "at most 128 characters")
    assertNotContains(response, report.url)


def test_report_page_rejects_other_methods(client):
    report = ReportFactory()

    response = client.delete(page_url(report))

    assert_method_not_allowed(response, "GET, HEAD, POST")
    assert Report.objects.filter(pk=report.pk).exists()


def test_report_page_shows_units_and_advice_for_failed_checks_only(client):
    results = {
        "performance": {
            "load_time": {
                "passed": False,
                "importance": "medium",
                "value": 5234,
                "errors": {"too_slow": {"max": 2000, "current": 5234}},
            },
            "dom_size": {"passed": True, "importance": "low", "value": 14, "errors": {}},
        }
    }
    report = ReportFactory(results=results)

    response = client.get(page_url(report))

    assertContains(response, "5,234 ms")
    assertContains(response, "14 nodes")
    assertContains(response, "Why it matters:", count=1)
    assertContains(response, "Visitors leave slow pages")


def test_report_page_offers_the_download_to_everyone_and_a_rerun_to_the_owner_only(client, user, other_user):
    report = ReportFactory(owner=user)

    anonymous = client.get(page_url(report))
    client.force_login(other_user)
    other = client.get(page_url(report))
    client.force_login(user)
    owner = client.get(page_url(report))

    for response in (anonymous, other, owner):
        assertContains(response, f'href="/reports/{report.pk}.json"')
    assertNotContains(anonymous, f"/reports/{report.pk}/rerun")
    assertNotContains(other, f"/reports/{report.pk}/rerun")
    assertContains(owner, f'action="/reports/{report.pk}/rerun"')


def test_report_page_shows_one_gauge_per_category_with_its_score(client):
    report = ReportFactory()  # seo 50, performance 100, security 99, miscellaneous 100; no accessibility checks

    response = client.get(page_url(report))

    body = response.content.decode()
    for key, score in (("seo", 50), ("performance", 100), ("security", 99), ("miscellaneous", 100)):
        assert f'data-category-score="{key}"' in body
        assertContains(response, f'data-testid="category-score-{key}">{score}<', count=1)
    assert 'data-category-score="accessibility"' not in body
    assertContains(response, '<li class="gauge gauge-small gauge-decent" data-category-score="seo">')


def test_report_page_lists_failed_checks_first_and_collapses_the_passed_ones(client):
    report = ReportFactory()

    body = client.get(page_url(report)).content.decode()

    seo = body[body.index('id="category-seo"') : body.index('id="category-performance"')]
    assert seo.index('data-check="image_keywords"') < seo.index("<details") < seo.index('data-check="title"')
    assert "Passed checks (<span data-passed-summary>1</span>)" in seo


def test_report_page_filters_checks_by_category_and_importance_without_script(client):
    results = {
        "seo": {
            "title": {"passed": False, "importance": "high", "value": None, "errors": {}},
            "h1": {"passed": False, "importance": "medium", "value": None, "errors": {}},
        },
        "security": {"hsts": {"passed": False, "importance": "low", "value": None, "errors": {}}},
    }
    report = ReportFactory(results=results)

    body = client.get(page_url(report), {"category": "seo", "importance": "medium"}).content.decode()

    assert 'data-check="h1"' in body
    assert 'data-check="title"' not in body
    assert 'data-check="hsts"' not in body
    assert '<option value="seo" selected>' in body
    assert '<option value="medium" selected>' in body


@pytest.mark.parametrize("query", [{"category": "nope"}, {"importance": "urgent"}, {"category": ["seo", "x"]}])
def test_report_page_ignores_unusable_filter_values(client, query):
    report = ReportFactory()

    response = client.get(page_url(report), query)

    assert response.status_code == 200
    assertContains(response, 'data-check="htst"')
    assertContains(response, 'data-check="image_keywords"')


LAB_METRICS = {
    "fcp": {"value": 1200, "unit": "ms", "rating": "good", "score": 0.99},
    "lcp": {"value": 4600, "unit": "ms", "rating": "poor", "score": 0.4},
    "tbt": {"value": 350, "unit": "ms", "rating": "needs-improvement", "score": 0.74},
    "cls": {"value": 0.02, "unit": "", "rating": "good", "score": 1.0},
    "profile": {"rtt_ms": 150, "throughput_kbps": 1638.4, "cpu_slowdown": 4},
}


def test_a_rendered_report_lists_its_lab_metrics_with_lighthouses_thresholds(client):
    report = ReportFactory(rendering={"document": "rendered", "render_ms": 2100, "metrics": LAB_METRICS})

    response = client.get(page_url(report))

    assertContains(response, '<h2 id="lab-metrics-heading">Lab metrics</h2>', html=True)
    body = response.content.decode()
    lcp = body[body.index('data-metric="lcp"') : body.index('data-metric="tbt"')]
    assert "Largest Contentful Paint" in lcp
    assert "<strong>4.6 s</strong> · Poor" in lcp
    assert "good ≤ 2.5 s, poor &gt; 4 s" in lcp
    assert "lab-metric-poor" in body
    assert "<strong>350 ms</strong> · Needs improvement" in body
    assert "<strong>0.020</strong> · Good" in body
    assertContains(response, "150 ms round trips, 1,638 kbit/s, a CPU 4 times slower")


@pytest.mark.parametrize("rendering", [{"document": "source"}, {"document": "source", "render_error": "timeout"}])
def test_a_report_read_as_served_has_no_lab_metrics(client, rendering):
    report = ReportFactory(rendering=rendering)

    assertNotContains(client.get(page_url(report)), "Lab metrics")


def test_a_private_reports_lab_metrics_stay_hidden_from_others(client, other_user):
    report = ReportFactory(privacy=Report.Privacy.PRIVATE, rendering={"document": "rendered", "metrics": LAB_METRICS})
    client.force_login(other_user)

    response = client.get(page_url(report))

    assert response.status_code == 404
    assertNotContains(response, "Lab metrics", status_code=404)
