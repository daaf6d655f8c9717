import json

import pytest
from rest_framework import serializers

from common.renderers import FastJSONRenderer
from reports.models import Report
from reports.serializers import ReportSerializer
from tests.reports.factories import ReportFactory

pytestmark = pytest.mark.django_db


def drf_representation(report: Report) -> dict:
    """The object DRF builds from the serializer's declared fields, one field at a time."""
    return serializers.ModelSerializer.to_representation(ReportSerializer(), report)


@pytest.mark.parametrize("page_password", ["", "s3cret"])
def test_report_representation_equals_the_declared_fields(user, page_password):
    report = ReportFactory(owner=user, page_password=page_password)
    report = Report.objects.select_related("project").get(pk=report.pk)

    assert ReportSerializer(report).data == drf_representation(report)


def test_representation_of_a_report_just_made_equals_the_declared_fields(user):
    report = ReportFactory(owner=user, privacy=Report.Privacy.PRIVATE)

    assert ReportSerializer(report).data == drf_representation(report)


def test_report_fetched_with_its_results_as_text_renders_the_same_json(user):
    report = ReportFactory(owner=user, results={"seo": {"title": {"value": "Ünïcode ✓", "errors": {}}}})
    plain = Report.objects.select_related("project").get(pk=report.pk)
    as_text = Report.objects.select_related("project").with_results_text().get(pk=report.pk)

    rendered = FastJSONRenderer().render(ReportSerializer(as_text).data)

    assert json.loads(rendered) == json.loads(FastJSONRenderer().render(ReportSerializer(plain).data))
