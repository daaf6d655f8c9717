"""The README's one-line CI command for audits, run as it is against a live server crawling the local audit site."""

import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from reports.management.commands.analysis_worker import AnalysisWorker
from reports.models import ApiKey, Audit, Project
from tests.reports.test_tasks import DATABASE_BACKEND

README = Path(__file__).resolve().parents[3] / "reports" / "README.md"

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not (shutil.which("jq") and shutil.which("curl")), reason="the command needs curl and jq"),
]


def command() -> str:
    lines = [line for line in README.read_text().splitlines() if line.startswith("a=$(curl")]
    assert len(lines) == 1, "reports/README.md has one audit CI command"
    return lines[0]


def run(live_server, key: str, url: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "WEBTOOLS": live_server.url, "WEBTOOLS_KEY": key, "URL": url, "PAGES": "5"}
    return subprocess.run(["bash", "-c", command()], env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def key(user) -> str:
    return ApiKey.issue(user=user)[1]


def budget(user, **rules) -> None:
    Project.objects.create(owner=user, name="localhost", budget=rules)


def test_a_met_budget_exits_0(live_server, audit_site, user, key):
    budget(user, min_score=50)

    result = run(live_server, key, audit_site.url("/a"))

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '{"passed":true,"failures":[]}'
    assert Audit.objects.get().pages_found == 5


def test_a_failed_budget_exits_1_and_says_why(live_server, audit_site, user, key):
    budget(user, min_score=100)

    result = run(live_server, key, audit_site.url("/a"))

    assert result.returncode == 1
    assert '"passed":false' in result.stdout and '"rule":"min_score"' in result.stdout


def test_a_refused_audit_exits_non_zero(live_server, audit_site, user, key):
    result = run(live_server, key, "ftp://localhost/")

    assert result.returncode != 0
    assert not Audit.objects.exists()


def test_the_command_polls_until_a_worker_has_finished_the_audit(live_server, audit_site, user, key, settings):
    settings.TASKS = DATABASE_BACKEND
    budget(user, min_score=100)
    worker = AnalysisWorker(threads=2, interval=0.05, backend_name="default", worker_id="ci-worker")
    thread = threading.Thread(target=worker.run)
    thread.start()
    try:
        result = run(live_server, key, audit_site.url("/a"))
    finally:
        worker.stopping.set()
        thread.join(timeout=60)

    assert result.returncode == 1
    assert '"rule":"min_score"' in result.stdout
    assert Audit.objects.get().status == "done"
