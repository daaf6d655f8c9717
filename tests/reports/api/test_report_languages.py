"""The API stays English, byte for byte, whatever language the client asks for (issue 48): a report's
checks come out as stored, and the comparison's Markdown names them in English."""

import pytest
from rest_framework import status

from tests.reports.check_samples import mixed
from tests.reports.factories import ReportFactory

pytestmark = pytest.mark.django_db

LANGUAGES = ["fr", "de", "es"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_reports_json_is_the_same_in_every_language(owner_client, user, language):
    report = ReportFactory(owner=user, results=mixed())

    english = owner_client.get(f"/api/v1/reports/{report.pk}")
    asked = owner_client.get(f"/api/v1/reports/{report.pk}", HTTP_ACCEPT_LANGUAGE=language)

    assert english.status_code == asked.status_code == status.HTTP_200_OK
    assert asked.content == english.content
    assert (
        asked.json()["data"]["results"]["security"]["content_security_policy"]
        == mixed()["security"]["content_security_policy"]
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_markdown_comparison_names_checks_in_english_in_every_language(owner_client, user, language):
    before = ReportFactory(owner=user, results=mixed(failed_first=True))
    now = ReportFactory(owner=user, project=before.project, results=mixed(failed_first=False))
    url = f"/api/v1/reports/{now.pk}/compare?with={before.pk}&format=markdown"

    english = owner_client.get(url)
    asked = owner_client.get(url, HTTP_ACCEPT_LANGUAGE=language)

    assert asked.content == english.content
    assert "- Image alt texts (SEO, " in asked.content.decode()
