"""The README's one-line CI command, run as it is against a live server and the local test site.

It must exit 0 when the budget is met, non-zero when it fails or the page cannot be analysed,
and poll when the create answers 202.
"""

import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from django.db import connection

from reports import tasks
from reports.models import ApiKey, Project, Report

README = Path(__file__).resolve().parents[2] / "reports" / "README.md"

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not (shutil.which("jq") and shutil.which("curl")), reason="the command needs curl and jq"),
]


def command() -> str:
    lines = [line for line in README.read_text().splitlines() if line.startswith("r=$(curl")]
    assert len(lines) == 1, "reports/README.md has one CI command"
    return lines[0]


def run(live_server, key: str, url: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "WEBTOOLS": live_server.url, "WEBTOOLS_KEY": key, "URL": url}
    return subprocess.run(["bash", "-c", command()], env=env, capture_output=True, text=True, timeout=60)


@pytest.fixture
def key(user) -> str:
    return ApiKey.issue(user=user)[1]


def budget(user, **rules) -> None:
    Project.objects.create(owner=user, name="127.0.0.1", budget=rules)


def test_a_met_budget_exits_0(live_server, test_site, user, key):
    budget(user, min_score=50)

    result = run(live_server, key, test_site.url("/good"))

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '{"passed":true,"failures":[]}'


def test_a_failed_budget_exits_non_zero_and_says_why(live_server, test_site, user, key):
    budget(user, min_score=100, checks=["title"])

    result = run(live_server, key, test_site.url("/bad"))

    assert result.returncode == 1
    assert '"passed":false' in result.stdout
    assert '"rule":"min_score"' in result.stdout


def test_a_page_that_cannot_be_analysed_exits_non_zero(live_server, test_site, user, key):
    result = run(live_server, key, test_site.url("/static/style.css"))

    assert result.returncode != 0
    assert not Report.objects.exists()


def test_the_command_polls_until_the_analysis_is_done(live_server, test_site, user, key, settings):
    # The create answers 202 at once; a "worker" runs the queued analysis a moment later.
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    settings.REPORTS_ANALYSIS_WAIT = 0
    budget(user, min_score=100)

    def worker() -> None:
        deadline = time.monotonic() + 20
        try:
            while time.monotonic() < deadline:
                report = Report.objects.filter(status=Report.Status.QUEUED).first()
                if report is not None:
                    time.sleep(1)
                    tasks.analyze_report.call(report.pk, report.analysis_run)
                    return
                time.sleep(0.1)
        finally:
            connection.close()  # this thread's own connection: the test database is dropped after

    thread = threading.Thread(target=worker)
    thread.start()
    started = time.monotonic()
    result = run(live_server, key, test_site.url("/bad"))
    thread.join()

    assert result.returncode == 1, result.stderr
    assert time.monotonic() - started >= 1  # it waited for the worker
    assert Report.objects.get().status == Report.Status.DONE
