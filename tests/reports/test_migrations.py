"""The data migration that gives reports analysed before issue 21 their category scores."""

import importlib

import pytest
from django.apps import apps

from reports.models import Report
from tests.reports.factories import SAMPLE_RESULTS, ReportFactory

pytestmark = pytest.mark.django_db

fill_scores = importlib.import_module("reports.migrations.0006_category_scores_from_results").fill_scores


def test_existing_reports_get_their_category_scores_from_their_stored_results():
    analysed = ReportFactory(results=SAMPLE_RESULTS)
    malformed = ReportFactory(results={"seo": {"title": {"value": "no verdict"}}, "other": []})
    queued = ReportFactory(score=None, result="", results={}, generated_at=None, status=Report.Status.QUEUED)
    Report.objects.update(**{f"score_{category}": None for category in Report().scores})

    fill_scores(apps, None)

    assert Report.objects.get(pk=analysed.pk).scores == {
        "seo": 75,
        "performance": 100,
        "security": 99,
        "accessibility": None,
        "miscellaneous": 100,
    }
    assert Report.objects.get(pk=malformed.pk).scores["seo"] == 100
    assert set(Report.objects.get(pk=queued.pk).scores.values()) == {None}
