"""Interface A's pages in French, German and Spanish: no English left (tests/i18n.py), and the JSON API
still English word for word whatever the reader's language.

Each page is fetched in English and in the other language with the test client (Accept-Language).
Two kinds of text are left out of the comparison, because other parts of issue 48 translate them:
- the site's header and footer (templates/base.html and partials/site_header.html);
- what reports/presentation.py and reports/advice.py write (category and check names, evidence,
  advice, lab metrics): `presentation_texts()` lists them for the report being shown.
"""

import copy
import re

import pytest
from django.conf import settings
from django.utils import timezone
from rest_framework.test import APIClient

from reports import presentation
from reports.models import ApiKey, Audit, Project, Report
from tests.i18n import untranslated
from tests.reports.audits.factories import done_audit
from tests.reports.factories import SAMPLE_RESULTS, ReportFactory
from tests.reports.pages.test_report_page import LAB_METRICS

pytestmark = pytest.mark.django_db

LANGUAGES = ["fr", "de", "es"]
SITE_CHROME = re.compile(r'<nav class="site-nav".*?</nav>|<footer class="site-footer">.*?</footer>', re.S)
# A chart legend's line: a URL and its scores, no words ("https://shop.example/: 90 → 64").
URL_AND_SCORES = re.compile(r"^https?://\S+: [\d →]+$")
ERRORS = re.compile(r'<li class="message error">(.*?)</li>')


def presentation_texts(*reports: Report) -> set[str]:
    """The texts reports.presentation and reports.advice write on these reports' pages (translated elsewhere)."""
    texts = {str(label) for label in presentation.CATEGORY_LABELS.values()}
    texts |= {str(label) for label in presentation.IMPORTANCE_LABELS.values()}
    for report in reports:
        for category in presentation.categories(report.results, report.scores):
            texts.add(str(category.label))
            for check in category.checks:
                texts |= {str(check.label), *map(str, check.problems), *map(str, check.evidence)}
                if check.advice:
                    texts |= {str(check.advice.why), str(check.advice.fix)}
        for key in {key for checks in report.results.values() if isinstance(checks, dict) for key in checks}:
            texts.add(str(presentation.humanize(key)))
        metrics = presentation.lab_metrics((report.rendering or {}).get("metrics"))
        for row in (metrics or {}).get("rows", []):
            texts |= {str(row["label"]), str(row["value"]), str(row["rating_label"]), f"({row['thresholds']})"}
    return {" ".join(text.split()) for text in texts}


def english_left(client, method: str, path: str, language: str, data=None, ignore=(), status=200) -> list[str]:
    """The English text left on the page at `path` in `language`, its header and footer left out."""
    fetch = client.post if method == "post" else client.get
    english = fetch(path, data, HTTP_ACCEPT_LANGUAGE="en")
    translated = fetch(path, data, HTTP_ACCEPT_LANGUAGE=language)
    assert (english.status_code, translated.status_code) == (status, status), path
    assert translated["Content-Language"] == language
    left = untranslated(
        SITE_CHROME.sub("", english.content.decode()),
        SITE_CHROME.sub("", translated.content.decode()),
        language,
        ignore,
    )
    return [segment for segment in left if not URL_AND_SCORES.match(segment)]


@pytest.fixture
def reports(user):
    """alice's reports: a rendered one with lab metrics and an earlier analysis, a running and a failed one,
    and enough of them for two pages of the list."""
    project = Project.objects.create(owner=user, name="shop.example", schedule="weekly", next_run_at=timezone.now())
    before = ReportFactory(owner=user, project=project, url="https://shop.example/", score=90)
    results = copy.deepcopy(SAMPLE_RESULTS)
    results["seo"]["title"]["passed"] = False
    main = ReportFactory(
        owner=user,
        project=project,
        url="https://shop.example/",
        score=64,
        results=results,
        rendering={"document": "rendered", "render_ms": 2100, "metrics": LAB_METRICS},
    )
    ReportFactory(owner=user, project=project, url="https://shop.example/b", score=30)
    ReportFactory.create_batch(8, owner=user, project=project, url="https://shop.example/c")
    running = ReportFactory(
        owner=user, project=project, status=Report.Status.RUNNING, score=None, result="", generated_at=None
    )
    failed = ReportFactory(owner=user, project=project, status=Report.Status.FAILED, error="DNS", generated_at=None)
    return {"main": main, "before": before, "running": running, "failed": failed}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_signed_in_users_report_pages_have_no_english_left(client, user, reports, language):
    client.force_login(user)
    main, before = reports["main"], reports["before"]
    ignore = presentation_texts(main, before) | {"DNS", "alice"}

    for path in (
        "/reports/",
        "/reports/?per_page=10&page=2",
        "/reports/projects",
        "/reports/projects?chart=security",
        "/reports/new",
        f"/reports/{main.pk}",
        f"/reports/{main.pk}?importance=low",
        f"/reports/{main.pk}/compare?with={before.pk}",
        f"/reports/{reports['running'].pk}/progress",
        f"/reports/{reports['failed'].pk}/progress",
    ):
        assert english_left(client, "get", path, language, ignore=ignore) == [], path


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    "data",
    [
        {"url": "", "privacy": "0"},
        {"url": "ftp://files.example/", "privacy": "0"},
        {"url": "https://me:secret@shop.example/", "privacy": "0"},
        {"url": "http://[fec0::1]/", "privacy": "0"},
        {"url": "https://shop.example/", "privacy": "2"},
    ],
)
def test_the_analyse_forms_errors_are_in_the_readers_language(client, user, language, data):
    client.force_login(user)

    assert english_left(client, "post", "/reports/new", language, data, status=422) == []
    # Each error message is in the reader's language, none is the English one.
    english = ERRORS.findall(client.post("/reports/new", data, HTTP_ACCEPT_LANGUAGE="en").content.decode())
    translated = ERRORS.findall(client.post("/reports/new", data, HTTP_ACCEPT_LANGUAGE=language).content.decode())
    assert len(translated) == len(english) >= 1
    assert not set(translated) & set(english)
    assert Report.objects.count() == 0


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_public_report_and_its_password_page_have_no_english_left(client, user, reports, language):
    main = reports["main"]
    ignore = presentation_texts(main)
    locked = ReportFactory(owner=user)
    locked.set_privacy(Report.Privacy.PASSWORD, "s3cret")
    locked.save()

    assert english_left(client, "get", f"/reports/{main.pk}", language, ignore=ignore) == []
    assert english_left(client, "get", f"/reports/{locked.pk}", language) == []
    assert english_left(client, "post", f"/reports/{locked.pk}", language, {"password": "nope"}) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_site_audit_pages_have_no_english_left(client, user, language):
    before = done_audit(user, score=90)
    audit = done_audit(user, score=70, failing={"title": ("seo", "high"), "hsts": ("security", "low")})
    audit.project.budget = {"min_score": 80, "categories": {"seo": 95}, "checks": ["title"]}
    audit.project.save()
    running = done_audit(user, host="blog.example")
    Audit.objects.filter(pk=running.pk).update(status=Audit.Status.RUNNING, finished_at=None)
    locked = done_audit(user, host="intranet.example")
    locked.set_privacy(Audit.Privacy.PASSWORD, "s3cret")
    locked.save()
    ignore = presentation_texts(*Report.objects.filter(audit__in=[audit, before]))

    for path in (f"/audits/{audit.pk}", f"/audits/{audit.pk}/compare?with={before.pk}", f"/audits/{running.pk}"):
        assert english_left(client, "get", path, language, ignore=ignore) == [], path
    assert english_left(client, "get", f"/audits/{locked.pk}", language) == []
    assert english_left(client, "post", f"/audits/{locked.pk}", language, {"password": "nope"}) == []


def test_dates_and_numbers_follow_the_readers_format(client, user, reports):
    client.force_login(user)
    generated = reports["main"].generated_at

    french = client.get(f"/reports/{reports['main'].pk}", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    german = client.get(f"/reports/{reports['main'].pk}", HTTP_ACCEPT_LANGUAGE="de").content.decode()

    months = {
        "fr": [
            "janvier",
            "février",
            "mars",
            "avril",
            "mai",
            "juin",
            "juillet",
            "août",
            "septembre",
            "octobre",
            "novembre",
            "décembre",
        ]
    }
    assert f"{generated.day} {months['fr'][generated.month - 1]} {generated.year} {generated:%H:%M} UTC" in french
    assert "1\u202f638\u00a0kbit/s" in french or "1\u00a0638\u00a0kbit/s" in french
    assert f"{generated.day}. " in german and "1.638 kbit/s" in german
    # The machine-readable forms stay ISO.
    assert f'datetime="{generated.isoformat()}"' in french


def test_the_progress_status_json_of_the_page_speaks_the_readers_language(client, user, reports):
    client.force_login(user)

    body = client.get(f"/reports/{reports['running'].pk}/status", HTTP_ACCEPT_LANGUAGE="de").json()

    assert body["status"] == "running"
    assert body["text"] == "Läuft: Die Seite wird abgerufen und geprüft."


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_reports_api_answers_byte_identical_json_in_every_language(user, reports, language):
    _, raw_key = ApiKey.issue(user=user)
    owner_client = APIClient()
    owner_client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}", HTTP_ACCEPT="application/json")
    main = reports["main"]
    requests = [
        ("get", f"/api/v1/reports/{main.pk}", None),
        ("get", "/api/v1/reports?per_page=5", None),
        ("get", "/api/v1/projects", None),
        ("get", f"/api/v1/reports/{main.pk}/compare?with={reports['before'].pk}", None),
        ("post", "/api/v1/reports", {"url": "ftp://files.example/", "privacy": 2}),
        ("post", "/api/v1/reports", {"privacy": "public"}),
        ("get", "/api/v1/reports/999999", None),
    ]
    for method, path, data in requests:
        send = getattr(owner_client, method)
        english = send(path, data, format="json", HTTP_ACCEPT_LANGUAGE="en")
        translated = send(path, data, format="json", HTTP_ACCEPT_LANGUAGE=language)
        assert (translated.status_code, translated.content) == (english.status_code, english.content), path
        assert "Content-Language" not in translated
    assert settings.LANGUAGE_CODE == "en"
