"""Interfaces A and B fuzzed from their OpenAPI schema (schemathesis): no 500, and the schema tells the truth.

Bounded and seeded so that CI stays fast and repeatable: a fixed seed, 20 examples per
operation (about 340 requests in all) and no coverage phase, which alone made 500 more.

Against seeded data (issue 20, item 9): reports, projects and pastes of the fuzzing key's user,
whose ids replace three in four of the generated path parameters, so that most cases reach a
handler rather than a 404 for a report that does not exist. The last test counts them.
"""

import itertools
import zlib
from collections import Counter

import pytest
import schemathesis
from django.core import signals
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, settings
from schemathesis.checks import negative_data_rejection, positive_data_acceptance
from schemathesis.config import SchemathesisConfig

from pastes import services as paste_services
from pastes.attachments import attachment_add
from pastes.models import Comment
from reports import tasks
from reports.analysis import AnalysisResult
from reports.audits import discovery
from reports.models import ApiKey as ReportsApiKey
from reports.models import Webhook
from reports.serializers import INVALID_URL
from tests.pastes.asserts import assert_pastes_error
from tests.pastes.attachment_fixtures import PDF_BYTES, use_filesystem_storage
from tests.pastes.factories import PasteFactory, issue_key
from tests.reports.asserts import assert_reports_error
from tests.reports.audits.factories import done_audit
from tests.reports.factories import ReportFactory

pytestmark = [pytest.mark.django_db, pytest.mark.log_without_tracebacks]

# Not config.wsgi: its redirect shortcut starts background threads that this test does not need.
CONFIG = SchemathesisConfig.from_dict({"seed": 11, "phases": {"coverage": {"enabled": False}}})
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application(), config=CONFIG)

FUZZ_SETTINGS = settings(
    max_examples=20,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


@pytest.fixture(autouse=True)
def _keep_test_connection():
    # As Django's test client does: the handler would close the test's (transaction's) connection.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture(autouse=True)
def _no_fetching(monkeypatch):
    # Every URL the fuzzer makes up "analyses" to the same page, without a network.
    def analyze(url: str) -> AnalysisResult:
        return AnalysisResult(url=url, final_url=url, score=50, rating="decent", results={}, timing={})

    monkeypatch.setattr(tasks, "analyze", analyze)
    # A site audit reads the made-up site's robots.txt and sitemap first: it has none.
    monkeypatch.setattr(discovery, "read_site", lambda url: ("", []))


@pytest.fixture
def auth_headers(user) -> dict[str, str]:
    _, reports_key = ReportsApiKey.issue(user=user)
    return {"reports": f"Bearer {reports_key}", "pastes": issue_key(user)}


# More of each than examples per operation: every DELETE example can remove one of its own.
SEEDED = 25
# Statuses answered, per interface, over the fuzz (read by the last test of the module).
ANSWERS: dict[str, Counter[int]] = {"reports": Counter(), "pastes": Counter()}


@pytest.fixture
def seeded(user, settings, tmp_path) -> dict[str, itertools.cycle]:
    reports = [ReportFactory(owner=user) for _ in range(SEEDED)]
    # One webhook per project, for DELETE …/webhooks/{webhook_id} (more than one DELETE per project is a 404).
    webhooks = {
        report.project.name: Webhook.objects.create(
            project=report.project, url="https://hooks.example/", events=["report.done"], secret="s" * 20
        ).pk
        for report in reports
    }
    pastes = [PasteFactory(owner=user, discussion=True) for _ in range(SEEDED)]
    # Each paste's own comment, revision and attachment, for the paths that name one (issue 47).
    pastes_own = {"comment_id": {}, "number": {}, "attachment_id": {}}
    use_filesystem_storage(settings, tmp_path / "attachments")
    for paste in pastes:
        pastes_own["comment_id"][paste.pk] = Comment.objects.create(paste=paste, nickname="Ann", text="hi").pk
        paste_services.paste_update(paste=paste, changes={"content": "edited"})
        pastes_own["number"][paste.pk] = paste.revisions.get().number
        pdf = SimpleUploadedFile("report.pdf", PDF_BYTES, "application/pdf")
        pastes_own["attachment_id"][paste.pk] = attachment_add(paste=paste, upload=pdf).pk
    audits = [done_audit(user, host=f"audit-{number}.example") for number in range(SEEDED)]
    return {
        "id": itertools.cycle([report.pk for report in reports]),
        "audit_id": itertools.cycle([audit.pk for audit in audits]),
        "project": itertools.cycle([report.project.name for report in reports]),
        "paste_id": itertools.cycle([paste.pk for paste in pastes]),
        "username": itertools.repeat(user.username),
        "webhook_of": webhooks,
        "pastes_own": pastes_own,
    }


def _positive(case, location: str) -> bool:
    """Whether the case's `location` part was generated to fit the schema (a negative one must stay as it is)."""
    info = case.meta.components.get(location) if case.meta is not None else None
    return info is None or info.mode.name == "POSITIVE"


def use_seeded_data(case, seeded: dict[str, itertools.cycle]) -> None:
    """Point seven in eight cases' path parameters at seeded objects (chosen by the generated value, so repeatably).

    The eighth keeps its generated value: an unknown id must be a 404 in the interface's shape too.
    """
    if not case.path_parameters or not _positive(case, "path"):
        return
    replaced = False
    audits = case.path.startswith("/api/v1/audits")
    for name, value in list(case.path_parameters.items()):
        if name in seeded and name not in ("webhook_of", "pastes_own") and zlib.crc32(repr(value).encode()) % 8:
            # An audit's {id} is an audit's, not a report's.
            case.path_parameters[name] = next(seeded["audit_id" if audits and name == "id" else name])
            replaced = True
    if (
        replaced
        and "webhook_id" in case.path_parameters
        and case.path_parameters.get("project") in seeded["webhook_of"]
    ):
        case.path_parameters["webhook_id"] = seeded["webhook_of"][case.path_parameters["project"]]
    if replaced and case.path_parameters.get("paste_id") in seeded["pastes_own"]["number"]:
        for name, of_paste in seeded["pastes_own"].items():
            if name in case.path_parameters:
                case.path_parameters[name] = of_paste[case.path_parameters["paste_id"]]
    # A comparison names its second report in the query (?with=).
    if replaced and isinstance(case.query, dict) and "with" in case.query and _positive(case, "query"):
        case.query["with"] = next(seeded["audit_id" if audits else "id"])
    # An edit names its paste in the body too (unless the body was made to break the schema).
    edit = "paste_id" in case.path_parameters and isinstance(case.body, dict) and "id" in case.body
    if replaced and edit and _positive(case, "body"):
        case.body["id"] = case.path_parameters["paste_id"]


@schema.parametrize()
@FUZZ_SETTINGS
def test_api_matches_its_schema(case, auth_headers, seeded):
    interface = "reports" if case.path.startswith("/api/") else "pastes"
    use_seeded_data(case, seeded)

    excluded = []
    if case.method == "GET" and case.path.startswith("/api/"):
        # A's lists ignore unknown parameters and let unusable values fall back (as the
        # reference does, and the schema says): no query string is refused there.
        excluded.append(negative_data_rejection)
    if case.path.startswith(("/api/v1/reports", "/api/v1/audits")) and case.method in ("POST", "PUT", "PATCH"):
        # Whether a URL can be analysed (URLValidator's rules, a host that answers) is more
        # than a schema can state; such a URL is a 422 naming the cause.
        excluded.append(positive_data_acceptance)
    if case.path.startswith("/api/v1/projects/") and case.method in ("POST", "PATCH"):
        # Likewise a webhook's url (the SSRF guard's rules) and a budget's check and category
        # names (the engine's) are checked beyond what the schema states: a 422 naming them.
        excluded.append(positive_data_acceptance)
    if interface == "pastes" and isinstance(case.body, dict) and case.body.get("encrypted") is True:
        # An encrypted paste's content must be the encryption envelope (pastes/encryption.py), a JSON
        # object inside the string that a schema cannot state: other content is a 400 naming the format.
        excluded.append(positive_data_acceptance)

    if interface == "pastes" and isinstance(case.body, dict) and "files" in case.body:
        # A file's name is checked beyond its schema (no path separator, `..`, control or bidi
        # character; unique in the paste), and its syntax must be one the highlighter knows: a 400
        # naming the file.
        excluded.append(positive_data_acceptance)
    if case.path.endswith("/comments") and isinstance(case.body, dict) and case.body.get("parent_id") is not None:
        # A reply names a top-level comment of the same paste, which the generated number is not: a 400
        # naming it.
        excluded.append(positive_data_acceptance)
    if case.path.endswith("/attachments") and case.method == "POST":
        # An attachment is checked beyond its schema: whether its bytes are the image or PDF its part's
        # Content-Type claims (which the generator sets freely), and its filename's characters, which
        # the generator does not hold to the schema's pattern in a multipart form: each a 400 naming it.
        # And a form's values are all text, so its "wrong types" (a null sent as the text null) are
        # good filenames.
        excluded += [positive_data_acceptance, negative_data_rejection]

    headers = {"Authorization": auth_headers[interface]}
    response = case.call(headers=headers)
    ANSWERS[interface][response.status_code] += 1
    case.validate_response(response, excluded_checks=excluded, headers=headers)


@pytest.fixture
def openapi(client) -> dict:
    return client.get("/api/schema/?format=json").json()


def test_schema_states_the_mismatches_issue_11_found(openapi):
    """Regression for issue 11: four places where the schema and the behaviour disagreed."""
    components = openapi["components"]["schemas"]
    edit_body = openapi["paths"]["/pastes/edit/{paste_id}"]["patch"]["requestBody"]["content"]["application/json"]
    report_list = openapi["paths"]["/api/v1/reports/"]["get"]["parameters"]
    create_bodies = openapi["paths"]["/api/v1/reports/"]["post"]["requestBody"]["content"]

    assert components[edit_body["schema"]["$ref"].rsplit("/", 1)[1]]["required"] == ["id"]
    assert components["PasteCreate"]["properties"]["content"]["minLength"] == 1
    assert "enum" not in next(p for p in report_list if p["name"] == "sort_by")["schema"]
    form_body = components[create_bodies["application/x-www-form-urlencoded"]["schema"]["$ref"].rsplit("/", 1)[1]]
    assert "nullable" not in form_body["properties"]["privacy"]


def test_most_fuzzed_cases_reach_a_handler():
    """Before the seeding, 1,408 of A's 2,645 cases (53%) were 404s: no report existed while it ran.

    With the seeding, the 404s left are the deliberately schema-breaking paths and the cases
    left on generated ids (one in eight); with one in four left, A's audits and schedules
    brought its share to 20-22 %, at the limit. With one in eight, 19-22 % (28 Nov 2026: which
    ids a case meets depends on the rows earlier tests left, so the share moves between runs),
    hence 25 %: half of the unseeded figure, with room for that spread.
    """
    if not ANSWERS["reports"]:
        pytest.skip("counts the fuzz above: run the whole module")
    for interface, most in (("reports", 0.25), ("pastes", 0.35)):
        answers = ANSWERS[interface]
        total = sum(answers.values())
        assert answers[404] / total < most, f"{interface}: {answers[404]} of {total} cases were 404s ({answers})"


def test_schema_states_the_mismatches_issue_20_found(openapi, user):
    """Regression for issue 20, item 9: a report's url and an edit's id, refused by the API, allowed by the schema."""
    import re

    from tests.pastes.factories import issue_key as paste_key

    components = openapi["components"]["schemas"]
    url = components["ReportCreate"]["properties"]["url"]
    edit_id = components["PasteEdit"]["properties"]["id"]
    _, reports_key = ReportsApiKey.issue(user=user)
    paste = PasteFactory(owner=user)
    client = Client(HTTP_AUTHORIZATION=f"Bearer {reports_key}", HTTP_ACCEPT="application/json")

    refused_url = client.post("/api/v1/reports", {"url": "0"}, content_type="application/json")
    refused_id = Client(HTTP_AUTHORIZATION=paste_key(user)).patch(
        f"/pastes/edit/{paste.pk}", {"id": ""}, content_type="application/json"
    )

    assert_reports_error(refused_url, 422, {"url": [INVALID_URL]})
    assert (url["format"], re.search(url["pattern"], "0")) == ("uri", None)
    assert re.search(url["pattern"], "https://example.com/page")
    assert_pastes_error(refused_id, 400, "id must not be empty.")
    assert edit_id["minLength"] == 1
