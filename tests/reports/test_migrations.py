"""The data migration that gives reports analysed before issue 21 their category scores."""

import importlib
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext

from reports.models import Report
from tests.reports.factories import SAMPLE_RESULTS, ReportFactory

pytestmark = pytest.mark.django_db

scores_migration = importlib.import_module("reports.migrations.0006_category_scores_from_results")
fill_scores = scores_migration.fill_scores
SCHEMA_EDITOR = SimpleNamespace(connection=connection)  # all fill_scores reads of it


def test_existing_reports_get_their_category_scores_from_their_stored_results():
    analysed = ReportFactory(results=SAMPLE_RESULTS)
    malformed = ReportFactory(results={"seo": {"title": {"value": "no verdict"}}, "other": []})
    queued = ReportFactory(score=None, result="", results={}, generated_at=None, status=Report.Status.QUEUED)
    Report.objects.update(**{f"score_{category}": None for category in Report().scores})

    fill_scores(apps, SCHEMA_EDITOR)

    # The engine's scoring of today: SEO as Lighthouse weighs it, title passing and image alt failing.
    assert Report.objects.get(pk=analysed.pk).scores == {
        "seo": 50,
        "performance": 100,
        "security": 99,
        "accessibility": None,
        "miscellaneous": 100,
    }
    assert Report.objects.get(pk=malformed.pk).scores["seo"] == 100
    assert set(Report.objects.get(pk=queued.pk).scores.values()) == {None}


def test_scores_are_filled_in_batches_each_committed_on_its_own(monkeypatch):
    monkeypatch.setattr(scores_migration, "BATCH", 2)  # five reports: three batches, the last one short
    reports = ReportFactory.create_batch(5, results=SAMPLE_RESULTS)
    Report.objects.update(**{f"score_{category}": None for category in Report().scores})

    fill_scores(apps, SCHEMA_EDITOR)

    assert [Report.objects.get(pk=report.pk).scores["seo"] for report in reports] == [50] * 5


rescore_migration = importlib.import_module("reports.migrations.0016_seo_accessibility_scores_like_lighthouse")
rescore = rescore_migration.rescore


def test_seo_and_accessibility_scores_stored_before_are_made_again_like_lighthouses():
    results = {
        "seo": {
            "title": {"passed": True, "importance": "high", "value": "Home", "errors": {}},
            "meta_description": {"passed": False, "importance": "medium", "value": None, "errors": {"missing": None}},
            "language": {"passed": False, "importance": "medium", "value": None, "errors": {"missing": None}},
        },
        "accessibility": {
            "link_name": {"passed": True, "importance": "medium", "value": {"links": 3, "unnamed": 0}, "errors": {}},
            "button_name": {
                "passed": True,
                "importance": "medium",
                "value": {"buttons": 0, "unnamed": 0},
                "errors": {},
            },
        },
        "security": {"hsts": {"passed": False, "importance": "low", "value": None, "errors": {"missing": None}}},
    }
    # The scores the points rule gave it: seo 100 - 5 - 5, accessibility 100, security 99.
    report = ReportFactory(results=results, score_seo=90, score_accessibility=100, score_security=99)
    queued = ReportFactory(score=None, result="", results={}, generated_at=None, status=Report.Status.QUEUED)

    rescore(apps, SCHEMA_EDITOR)

    # seo: title passes, description and language (medium, 1 each) fail: 1 of 3. accessibility:
    # document-title (7) and link-name (7) pass, html-has-lang (7) fails, no buttons: 14 of 21.
    assert Report.objects.get(pk=report.pk).scores == {
        "seo": 33,
        "performance": None,
        "security": 99,
        "accessibility": 67,
        "miscellaneous": None,
    }
    assert set(Report.objects.get(pk=queued.pk).scores.values()) == {None}


def test_rescoring_goes_in_batches_each_committed_and_writes_only_what_changed(monkeypatch):
    monkeypatch.setattr(rescore_migration, "BATCH", 2)  # five reports: three batches, the last one short
    stale = ReportFactory.create_batch(3, results=SAMPLE_RESULTS, score_seo=90)
    current = ReportFactory.create_batch(2, results=SAMPLE_RESULTS, score_seo=50)

    with CaptureQueriesContext(connection) as queries:
        rescore(apps, SCHEMA_EDITOR)

    assert [Report.objects.get(pk=report.pk).scores["seo"] for report in stale + current] == [50] * 5
    # Batches (stale, stale), (stale, current), (current): the last one has nothing to write.
    assert len([query for query in queries if query["sql"].startswith("UPDATE")]) == 2
