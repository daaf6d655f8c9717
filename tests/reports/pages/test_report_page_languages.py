"""What the report page and the site audit page say about each check, in French, German and Spanish
(issue 48): labels, importances, problems, evidence, units and advice, with nothing left in English.

The page's own chrome (headings, table headers, buttons) is translated in its templates; these
tests read only the parts the checks fill in (`check_texts`), so that they judge the check texts
whatever state the chrome is in.
"""

import re
from html import unescape

import pytest

from reports.analysis.checks import CATEGORIES
from tests.i18n import untranslated
from tests.reports.audits.factories import done_audit
from tests.reports.check_samples import PAGE_WORDS, SITE, mixed
from tests.reports.factories import ReportFactory

pytestmark = pytest.mark.django_db

LANGUAGES = ["fr", "de", "es"]
LAB_METRICS = {
    "lcp": {"value": 2300, "unit": "ms", "rating": "good", "score": 0.9},
    "tbt": {"value": 350, "unit": "ms", "rating": "needs-improvement", "score": 0.7},
    "cls": {"value": 0.31, "unit": "", "rating": "poor", "score": 0.2},
    "fcp": {"value": None, "unit": "ms", "rating": None, "score": None},
}
# What the sample pages themselves contain, shown as they are: their words, and the header and
# meta values the checks quote (the URLs are taken out by `check_texts`).
PAGE_CONTENT = [
    *PAGE_WORDS,
    "click here",
    "english!",
    "en",
    "noindex",
    "menu-toggle",
    "a.menu",
    "nginx",
    "summary",
    "WebPage",
    "GitHub",
    "center",
    "font",
    "div",
    "span",
    "max-age=31536000",
    "default-src 'self'",
    "script-src * 'unsafe-inline'",
    "width=980",
    "width=device-width, initial-scale=1",
    "width=device-width, user-scalable=no",
]
URL = re.compile(r"\b(?:https?|javascript):[^\s<;,]*")
# A check's texts on the page: its name, importance, problems, evidence and advice (not the advice's
# "Why it matters:" label, which is the template's), and the lab metrics' rows.
CHECK_TEXT_PARTS = re.compile(
    r'<th scope="row">.*?</th>'
    r'|<td class="importance[^"]*">.*?</td>'
    r'|<ul class="(?:problems|evidence)">.*?</ul>'
    r'|<span class="advice-label">[^<]*</span>(.*?)</p>'
    r'|<dl class="lab-metrics-list">.*?</dl>',
    re.DOTALL,
)


def check_texts(html: str) -> str:
    parts = (match[1] if match[1] is not None else match[0] for match in CHECK_TEXT_PARTS.finditer(html))
    return URL.sub("https://…", "\n".join(parts))


def fetch(client, url: str, language: str) -> str:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture(params=[True, False], ids=["odd-checks-fail", "even-checks-fail"])
def report(request):
    """A rendered report with every check of the engine, failed and passed ones in every category."""
    return ReportFactory(
        results=mixed(failed_first=request.param),
        url=f"{SITE}/quindle",
        rendering={"document": "rendered", "render_ms": 2100, "metrics": LAB_METRICS},
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_report_page_says_everything_about_its_checks_in_the_readers_language(client, report, language):
    english = check_texts(fetch(client, report.get_absolute_url(), "en"))
    translated = check_texts(fetch(client, report.get_absolute_url(), language))

    assert english.count('<th scope="row">') == sum(len(checks) for checks in report.results.values())
    assert untranslated(english, translated, language, ignore=PAGE_CONTENT) == []
    assert translated != english


def test_the_report_page_shows_every_stored_fact_translated_into_french(client, report):
    html = fetch(client, report.get_absolute_url(), "fr")

    if report.results["performance"]["load_time"]["passed"]:
        assert "Taille totale\u00a0: 0 ko" in html  # http_requests' bytes, in kB as the French write them
    else:
        assert "Trop lent\u00a0: 5\u00a0234 ms (devrait être au plus 2\u00a0000 ms)" in html
        assert "Les visiteurs quittent les pages lentes" in html


def test_the_engines_own_sentences_are_translated_on_the_page(client):
    report = ReportFactory(results=mixed(failed_first=False), url=f"{SITE}/quindle")

    html = unescape(fetch(client, report.get_absolute_url(), "de"))

    assert "'unsafe-inline' erlaubt eingeschleuste Inline-Skripte" in html  # content_security_policy
    assert "Der TLS-Handshake mit zorblax.example ist fehlgeschlagen (certificate expired)." in html  # http2
    assert "'unsafe-inline' allows injected inline scripts" not in html


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_audit_page_names_failing_checks_in_the_readers_language(client, user, language):
    failing = {check.key: (category.name, check.importance) for category in CATEGORIES for check in category.checks}
    audit = done_audit(user, failing=failing)
    client.force_login(user)

    def issue_names(html: str) -> str:
        return "\n".join(re.findall(r"<summary><strong>.*?</strong>", html))

    english = issue_names(fetch(client, f"/audits/{audit.pk}", "en"))
    translated = issue_names(fetch(client, f"/audits/{audit.pk}", language))

    assert english.count("<strong>") == len(failing)
    assert untranslated(english, translated, language) == []


def test_why_an_analysis_failed_is_said_in_the_readers_language(client):
    # The engine's own words for a page that did not answer, as it stores them.
    report = ReportFactory(status="failed", error="The page did not answer within 10 seconds.", url=f"{SITE}/slow")

    page = unescape(fetch(client, report.get_absolute_url(), "fr"))
    client.force_login(report.owner)  # the progress page's status is its owner's
    status = client.get(f"/reports/{report.pk}/status", HTTP_ACCEPT_LANGUAGE="fr").json()

    assert "La page n'a pas répondu en 10 secondes." in page
    assert "The page did not answer" not in page
    assert status["error"] == "La page n'a pas répondu en 10 secondes."
