import json
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command


def run_command(*args: str) -> str:
    out = StringIO()
    call_command("analyze_url", *args, stdout=out)
    return out.getvalue()


def test_command_prints_score_rating_and_failed_checks_by_category(test_site):
    output = run_command(test_site.url("/good"))

    assert "Score:     73/100 (decent)" in output
    assert "By category: seo 100, performance 99, security 74, accessibility 100, miscellaneous 100" in output
    assert "Failed checks (3):" in output
    assert "\nperformance\n  http2             low     not_https" in output
    assert "\nsecurity\n  https_encryption  high    not_https" in output
    assert "\nseo\n" not in output  # no failed check, no heading


def test_command_shows_the_evidence_of_each_failure(test_site):
    output = run_command(test_site.url("/bad", site="bad"))

    assert "(bad)" in output
    assert re.search(r'\n  robots +high +disallowed: "Disallow: /"\n', output)
    assert 'found: {"center": 1, "font": 1}' in output


def test_command_prints_the_whole_result_as_json(test_site):
    data = json.loads(run_command(test_site.url("/good"), "--json"))

    assert data["final_url"] == test_site.url("/good")
    assert data["score"] == 73
    assert data["results"]["seo"]["title"]["passed"] is True


def test_command_reports_an_analysis_error_as_a_command_error(test_site):
    with pytest.raises(
        CommandError, match=r"^The URL does not point to an HTML page \(content type application/pdf\)\.$"
    ):
        run_command(test_site.url("/document.pdf"))
