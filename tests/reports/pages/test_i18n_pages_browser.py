"""A's pages in German, whose words are the longest of the four languages: at 390 px and on a desktop
nothing sticks out of the page and no word is cut across two lines."""

import copy

import pytest

from reports.models import Project
from tests.browser import mid_word_wraps
from tests.reports.audits.factories import done_audit
from tests.reports.factories import SAMPLE_RESULTS, ReportFactory
from tests.reports.pages.test_report_page import LAB_METRICS

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_german_pages_fit_and_wrap_between_words(screen, user):
    project = Project.objects.create(owner=user, name="shop.example")
    before = ReportFactory(owner=user, project=project, url="https://shop.example/", score=90)
    results = copy.deepcopy(SAMPLE_RESULTS)
    results["seo"]["title"]["passed"] = False
    report = ReportFactory(
        owner=user,
        project=project,
        url="https://shop.example/",
        score=64,
        results=results,
        rendering={"document": "rendered", "render_ms": 2100, "metrics": LAB_METRICS},
    )
    audit = done_audit(user, score=70, failing={"title": ("seo", "high")})
    audit.project.budget = {"min_score": 80, "checks": ["title"]}
    audit.project.save()
    screen.sign_in(user)
    screen.page.context.add_cookies([{"name": "django_language", "value": "de", "url": screen.live_server.url}])

    for path in (
        "/reports/",
        "/reports/projects",
        "/reports/new",
        f"/reports/{report.pk}",
        f"/reports/{report.pk}/compare?with={before.pk}",
        f"/audits/{audit.pk}",
    ):
        screen.goto(path)
        assert screen.page.locator(".section-nav").inner_text().startswith("Ihre Berichte"), path
        assert screen.overflow() <= 0, path
        assert mid_word_wraps(screen.page) == [], path
    assert screen.csp_violations == []
