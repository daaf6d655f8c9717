"""Interfaces A and B fuzzed from their OpenAPI schema (schemathesis): no 500, and the schema tells the truth.

Bounded and seeded so that CI stays fast and repeatable: a fixed seed, 20 examples per
operation (about 340 requests in all) and no coverage phase, which alone made 500 more.
"""

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import negative_data_rejection, positive_data_acceptance
from schemathesis.config import SchemathesisConfig

from reports import tasks
from reports.analysis import AnalysisResult
from reports.models import ApiKey as ReportsApiKey
from tests.pastes.factories import issue_key

pytestmark = [pytest.mark.django_db]

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


@pytest.fixture
def auth_headers(user) -> dict[str, str]:
    _, reports_key = ReportsApiKey.issue(user=user)
    return {"reports": f"Bearer {reports_key}", "pastes": issue_key(user)}


@schema.parametrize()
@FUZZ_SETTINGS
def test_api_matches_its_schema(case, auth_headers):
    interface = "reports" if case.path.startswith("/api/") else "pastes"

    excluded = []
    if case.method == "GET" and case.path.startswith("/api/"):
        # A's lists ignore unknown parameters and let unusable values fall back (as the
        # reference does, and the schema says): no query string is refused there.
        excluded.append(negative_data_rejection)
    if case.path.startswith("/api/v1/reports") and case.method in ("POST", "PUT", "PATCH"):
        # Whether a URL can be analysed (URLValidator's rules, a host that answers) is more
        # than a schema can state; such a URL is a 422 naming the cause.
        excluded.append(positive_data_acceptance)

    case.call_and_validate(headers={"Authorization": auth_headers[interface]}, excluded_checks=excluded)


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
