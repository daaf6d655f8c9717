"""Analyses on the tasks framework: queued in the database, run by the worker, exactly once."""

import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import OperationalError, connection
from django.tasks import task_backends
from django.utils import timezone
from django_tasks_db.backend import DatabaseBackend
from django_tasks_db.models import DBTaskResult
from rest_framework import status

from common.cache import RedisOutage
from reports import tasks
from reports.analysis.rendering import close_browsers
from reports.management.commands.analysis_worker import AnalysisWorker
from reports.models import Project, Report
from tests.polling import eventually
from tests.reports.api.conftest import _client_with_key
from tests.reports.asserts import assert_reports_error
from tests.reports.factories import ReportFactory
from tests.reports.renderers import own_browsers
from tests.reports.required import skip_or_fail
from tests.servers import RedisServer

PROJECT_DIR = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
URL = "/api/v1/reports"
DATABASE_BACKEND = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
NEVER_RUN_BACKEND = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}


def wait_for_status(report_id: int, *statuses: str, timeout: float = 30) -> Report:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        report = Report.objects.get(pk=report_id)
        if report.status in statuses:
            return report
        time.sleep(0.05)
    raise AssertionError(f"report {report_id} is still {report.status}")


@pytest.fixture
def owner_client(user):
    return _client_with_key(user)


@pytest.fixture
def worker(settings):
    """An analysis worker on the database backend, running in a thread of this process."""
    settings.TASKS = DATABASE_BACKEND
    worker = AnalysisWorker(threads=4, interval=0.05, backend_name="default", worker_id="test-worker")
    thread = threading.Thread(target=worker.run)
    thread.start()
    yield worker
    worker.stopping.set()
    thread.join(timeout=30)


@pytest.mark.django_db(transaction=True)
def test_create_answers_202_with_location_and_the_worker_completes_the_report(
    owner_client, test_site, settings, worker
):
    settings.REPORTS_ANALYSIS_WAIT = 0
    client = owner_client

    response = client.post(URL, {"url": test_site.url("/slow?delay=0.5")})

    assert response.status_code == status.HTTP_202_ACCEPTED
    body = response.json()
    assert body["status"] == 202
    assert body["data"]["status"] in ("queued", "running")
    assert body["data"]["result"] is None
    assert body["data"]["score"] is None
    assert body["data"]["generated_at"] is None
    assert response["Location"] == f"http://testserver{URL}/{body['data']['id']}"
    report = wait_for_status(body["data"]["id"], "done")
    polled = client.get(response["Location"]).json()["data"]
    assert polled["status"] == "done"
    assert polled["score"] == report.score is not None
    assert polled["results"]["seo"]["title"]["passed"] is True
    # The task writes the report, then the worker records the task's result: a moment later.
    eventually(lambda: DBTaskResult.objects.get().status == "SUCCESSFUL", message="the task was never recorded done")


@pytest.mark.django_db(transaction=True)
def test_create_answers_201_with_the_finished_report_when_it_finishes_within_the_wait(owner_client, test_site, worker):
    response = owner_client.post(URL, {"url": test_site.url("/good")})

    assert response.status_code == status.HTTP_201_CREATED
    assert response.json()["status"] == 200
    assert response.json()["data"]["status"] == "done"
    assert response.json()["data"]["score"] == Report.objects.get().score


@pytest.fixture
def rendering_on(settings):
    """Renderings in Debian's Chromium, set before a worker starts (it warms a browser up as it starts)."""
    if not Path(CHROMIUM).exists():
        skip_or_fail("needs Debian's chromium (apt-get install chromium)", "REQUIRE_BROWSER")
    settings.REPORTS_RENDER = True
    settings.REPORTS_CHROMIUM_PATH = CHROMIUM
    close_browsers()  # those of earlier tests: each test sees its own worker's


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_with_rendering_a_create_of_a_small_page_answers_201_with_the_rendered_report(
    owner_client, test_site, rendering_on, worker, settings
):
    # How long it takes is bench/create_rendered.py's (a busy machine starves Chromium at SCHED_IDLE):
    # here, that the create answers with the report the worker's warm browser rendered.
    settings.REPORTS_ANALYSIS_WAIT = 60
    warm = eventually(own_browsers, message="the worker started no browser as it started")

    response = owner_client.post(URL, {"url": test_site.url("/good")})

    assert response.status_code == status.HTTP_201_CREATED
    data = response.json()["data"]
    report = Report.objects.get()
    assert data["status"] == "done"
    assert data["result"] == report.result is not None
    assert data["results"]["seo"]["title"]["passed"] is True
    assert data["metrics"]["fcp"]["value"] > 0  # measured in the browser: the page was rendered
    assert report.rendering["document"] == "rendered"
    assert own_browsers() == warm  # on the browser the worker started, not one launched for it


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_worker_keeps_a_browser_warm_and_closes_it_when_it_stops(rendering_on, settings):
    settings.TASKS = DATABASE_BACKEND
    worker = AnalysisWorker(threads=2, interval=0.05, backend_name="default", worker_id="test-worker")
    thread = threading.Thread(target=worker.run)
    thread.start()
    try:
        eventually(own_browsers, message="the worker started no browser")
    finally:
        worker.stopping.set()
        thread.join(timeout=30)

    assert not thread.is_alive()
    assert not own_browsers()


@pytest.mark.django_db(transaction=True)
def test_rerun_answers_202_and_keeps_the_last_results_until_the_new_ones_are_done(
    owner_client, user, test_site, settings, worker
):
    settings.REPORTS_ANALYSIS_WAIT = 0
    report = ReportFactory(owner=user, url=test_site.url("/slow?delay=0.5"), score=1)

    response = owner_client.put(f"{URL}/{report.pk}", {"results": 1})

    assert response.status_code == status.HTTP_202_ACCEPTED
    assert response.json()["data"]["status"] in ("queued", "running")
    assert response.json()["data"]["score"] == 1
    assert response["Location"].endswith(f"{URL}/{report.pk}")
    report = wait_for_status(report.pk, "done")
    assert report.score > 1
    assert report.analysis_run == 2


@pytest.fixture
def queue_lost(monkeypatch):
    """The database connection drops just as the analysis' task is being queued."""

    def drop(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(DatabaseBackend, "_task_to_db_task", drop)


@pytest.mark.django_db
def test_with_the_database_backend_a_create_queues_its_task_with_the_report(owner_client, test_site, settings):
    settings.TASKS = DATABASE_BACKEND
    settings.REPORTS_ANALYSIS_WAIT = 0

    response = owner_client.post(URL, {"url": test_site.url("/good")})

    assert response.status_code == status.HTTP_202_ACCEPTED
    report = Report.objects.get()
    assert report.status == Report.Status.QUEUED
    assert [task.args_kwargs["args"] for task in DBTaskResult.objects.all()] == [[report.pk, 1]]


@pytest.mark.django_db
def test_a_create_whose_task_cannot_be_queued_leaves_no_report_behind(owner_client, test_site, settings, queue_lost):
    settings.TASKS = DATABASE_BACKEND
    owner_client.raise_request_exception = False

    response = owner_client.post(URL, {"url": test_site.url("/good")})

    assert_reports_error(response, 503)
    # Before, the report was committed first and then stayed queued on no queue for ever.
    assert not Report.objects.exists()
    assert not Project.objects.exists()
    assert not DBTaskResult.objects.exists()


@pytest.mark.django_db
def test_a_rerun_whose_task_cannot_be_queued_keeps_the_finished_report(
    owner_client, user, test_site, settings, queue_lost
):
    settings.TASKS = DATABASE_BACKEND
    owner_client.raise_request_exception = False
    report = ReportFactory(owner=user, url=test_site.url("/good"), score=80)

    response = owner_client.put(f"{URL}/{report.pk}", {"results": 1})

    assert_reports_error(response, 503)
    report.refresh_from_db()
    assert (report.status, report.analysis_run, report.score) == (Report.Status.DONE, 1, 80)
    assert not DBTaskResult.objects.exists()


@pytest.mark.django_db
def test_create_answers_202_at_once_when_every_waiting_slot_is_taken(owner_client, test_site, settings, monkeypatch):
    settings.TASKS = NEVER_RUN_BACKEND
    settings.REPORTS_ANALYSIS_WAIT = 60
    settings.REPORTS_ANALYSIS_WAIT_SLOTS = 1
    polls = []
    monkeypatch.setattr(tasks, "_poll_until_finished", lambda *args: polls.append(args))
    slot = tasks._wait_slots(1)
    assert slot.acquire(blocking=False)  # another request is waiting
    try:
        response = owner_client.post(URL, {"url": test_site.url("/good")})
    finally:
        slot.release()

    assert response.status_code == status.HTTP_202_ACCEPTED
    assert polls == []
    assert Report.objects.get().status == Report.Status.QUEUED


@pytest.mark.django_db
def test_create_waits_in_a_free_slot_and_answers_202_when_the_analysis_is_not_done_in_time(
    owner_client, test_site, settings
):
    settings.TASKS = NEVER_RUN_BACKEND
    settings.REPORTS_ANALYSIS_WAIT = 0.3

    started = time.monotonic()
    response = owner_client.post(URL, {"url": test_site.url("/good")})

    assert time.monotonic() - started >= 0.3
    assert response.status_code == status.HTTP_202_ACCEPTED
    assert response.json()["data"]["status"] == "queued"


@pytest.mark.django_db
def test_failed_analysis_after_the_wait_shows_status_failed_and_the_cause(owner_client, settings):
    settings.TASKS = NEVER_RUN_BACKEND
    settings.REPORTS_ANALYSIS_WAIT = 0
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = True  # a loopback port where nothing listens: the fetch fails
    report_id = owner_client.post(URL, {"url": "http://127.0.0.1:9/nothing-listens-here"}).json()["data"]["id"]
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}

    tasks.analyze_report.enqueue(report_id, 1)

    data = owner_client.get(f"{URL}/{report_id}").json()["data"]
    assert data["status"] == "failed"
    assert data["error"].startswith("The page could not be analysed: ")
    assert data["result"] is None
    assert data["results"] == {}


@pytest.mark.django_db
def test_list_shows_unfinished_reports_with_their_status_and_no_result(owner_client, test_site, settings):
    settings.TASKS = NEVER_RUN_BACKEND
    settings.REPORTS_ANALYSIS_WAIT = 0
    owner_client.post(URL, {"url": test_site.url("/good")})

    item = owner_client.get(URL).json()["data"][0]

    assert (item["status"], item["result"], item["score"], item["results"], item["error"]) == (
        "queued",
        None,
        None,
        {},
        None,
    )


@pytest.mark.django_db
def test_a_task_for_a_superseded_run_does_nothing(test_site):
    report = ReportFactory(url=test_site.url("/good"), status=Report.Status.QUEUED, analysis_run=2, score=1)

    outcome = tasks.analyze_report.call(report.pk, 1)

    assert outcome == "skipped"
    report.refresh_from_db()
    assert (report.status, report.score) == (Report.Status.QUEUED, 1)


@pytest.mark.django_db
def test_a_finished_analysis_stores_which_document_its_checks_read(test_site, settings):
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = True
    report = ReportFactory(url=test_site.url("/good"), status=Report.Status.QUEUED, analysis_run=1, rendering={})

    outcome = tasks.analyze_report.call(report.pk, 1)

    assert outcome == "done"
    report.refresh_from_db()
    assert report.rendering == {"document": "source"}


@pytest.mark.django_db
def test_a_second_task_for_the_same_run_does_nothing(test_site, settings):
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = True
    report = ReportFactory(url=test_site.url("/good"), status=Report.Status.QUEUED, analysis_run=1, score=1)

    first = tasks.analyze_report.call(report.pk, 1)
    report.refresh_from_db()
    generated_at = report.generated_at
    second = tasks.analyze_report.call(report.pk, 1)

    assert (first, second) == ("done", "skipped")
    report.refresh_from_db()
    assert report.generated_at == generated_at


@pytest.mark.django_db
def test_a_running_analysis_whose_lease_passed_is_queued_again_under_the_next_run(settings):
    settings.TASKS = NEVER_RUN_BACKEND
    stale = ReportFactory(status=Report.Status.RUNNING, lease_until=timezone.now() - timedelta(seconds=1))
    alive = ReportFactory(status=Report.Status.RUNNING, lease_until=timezone.now() + timedelta(seconds=30))

    assert tasks.requeue_stale_analyses() == 1

    stale.refresh_from_db()
    alive.refresh_from_db()
    assert (stale.status, stale.analysis_run, stale.lease_until) == (Report.Status.QUEUED, 2, None)
    assert (alive.status, alive.analysis_run) == (Report.Status.RUNNING, 1)


@pytest.mark.django_db
def test_the_late_finish_of_a_run_queued_again_is_discarded(test_site, settings, monkeypatch):
    """The old worker was only slow, not dead: its results must not overwrite the new run's."""
    settings.TASKS = NEVER_RUN_BACKEND
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = True
    report = ReportFactory(url=test_site.url("/good"), status=Report.Status.QUEUED, analysis_run=1, score=1)
    real_analyze = tasks.analyze

    def analyze_while_the_lease_passes(url):
        Report.objects.filter(pk=report.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
        tasks.requeue_stale_analyses()
        return real_analyze(url)

    monkeypatch.setattr(tasks, "analyze", analyze_while_the_lease_passes)

    outcome = tasks.analyze_report.call(report.pk, 1)

    assert outcome == "superseded"
    report.refresh_from_db()
    assert (report.status, report.analysis_run, report.score) == (Report.Status.QUEUED, 2, 1)


@pytest.mark.django_db(transaction=True)
def test_a_long_analysis_renews_its_lease(test_site, settings):
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = True
    settings.REPORTS_ANALYSIS_LEASE = 1.5
    report = ReportFactory(url=test_site.url("/slow?delay=1"), status=Report.Status.QUEUED, analysis_run=1)
    leases = []
    real_finish = tasks._finish

    def finish_and_record(report_id, run, **fields):
        leases.append(Report.objects.values_list("lease_until", flat=True).get(pk=report_id))
        return real_finish(report_id, run, **fields)

    started = timezone.now()
    tasks._finish, saved = finish_and_record, tasks._finish
    try:
        tasks.analyze_report.call(report.pk, 1)
    finally:
        tasks._finish = saved

    # Renewed after 0.5 s: the lease now ends later than the first one (started + 1.5 s).
    assert leases[0] > started + timedelta(seconds=1.5)


def start_worker_process(*, threads: int = 1, stop_grace: float = 5) -> subprocess.Popen:
    """`manage.py analysis_worker` in its own process, on the test database."""
    database = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}",
        "TASKS_BACKEND": "database",
        "REPORTS_ALLOW_PRIVATE_NETWORKS": "1",
        "REPORTS_ANALYSIS_LEASE": "2",
    }
    return subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "analysis_worker",
            f"--threads={threads}",
            "--interval=0.1",
            f"--stop-grace={stop_grace}",
        ],
        cwd=PROJECT_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_analysis_loses_nothing_and_each_analysis_completes_once(owner_client, test_site, settings):
    settings.TASKS = DATABASE_BACKEND
    settings.REPORTS_ANALYSIS_WAIT = 0
    slow = owner_client.post(URL, {"url": test_site.url("/slow?delay=2")}).json()["data"]["id"]
    waiting = owner_client.post(URL, {"url": test_site.url("/good")}).json()["data"]["id"]
    first = start_worker_process(threads=1)
    try:
        wait_for_status(slow, "running")
        # It yields the CPU to the web server's requests (REPORTS_WORKER_NICE).
        assert os.getpriority(os.PRIO_PROCESS, first.pid) == min(19, os.getpriority(os.PRIO_PROCESS, 0) + 10)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    assert Report.objects.get(pk=waiting).status == Report.Status.QUEUED

    second = start_worker_process(threads=1)
    try:
        reports = [wait_for_status(report_id, "done", timeout=60) for report_id in (slow, waiting)]
    finally:
        second.terminate()
        second.wait(timeout=30)

    assert [r.analysis_run for r in reports] == [2, 1]  # the killed run was queued again once
    assert all(r.results["seo"]["title"]["passed"] for r in reports)
    outcomes = sorted(DBTaskResult.objects.filter(status="SUCCESSFUL").values_list("return_value", flat=True))
    assert outcomes == ["done", "done"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_stopped_worker_hands_back_what_outlasts_its_grace_and_the_next_worker_runs_it(
    owner_client, test_site, settings
):
    settings.TASKS = DATABASE_BACKEND
    settings.REPORTS_ANALYSIS_WAIT = 0
    slow = owner_client.post(URL, {"url": test_site.url("/slow?delay=30")}).json()["data"]["id"]
    first = start_worker_process(threads=1, stop_grace=1)
    try:
        wait_for_status(slow, "running")

        first.send_signal(signal.SIGTERM)

        # Within its grace and the hand-back, far sooner than the 30 s page or the lease.
        assert first.wait(timeout=10) == 0
    finally:
        if first.poll() is None:
            first.kill()
    report = Report.objects.get(pk=slow)
    assert (report.status, report.analysis_run) == (Report.Status.QUEUED, 2)
    assert DBTaskResult.objects.ready().get().args_kwargs["args"] == [slow, 2]


@pytest.fixture
def rq_settings(settings):
    """The RQ backend on this project's Redis database for tests (REDIS_TEST_URL), emptied around the test."""
    import django_rq
    import redis

    url = os.environ.get("REDIS_TEST_URL", "redis://127.0.0.1:6379/5")
    try:
        redis.Redis.from_url(url).ping()
    except redis.ConnectionError:
        if os.environ.get("REQUIRE_REDIS"):
            pytest.fail(f"no Redis at {url}: start redis-server (or set REDIS_TEST_URL)")
        pytest.skip(f"no Redis at {url} (set REDIS_TEST_URL)")
    settings.TASKS = {"default": {"BACKEND": "django_tasks_rq.RQBackend"}}
    settings.RQ_QUEUES = {"default": {"URL": url}}
    settings.RQ = {"JOB_CLASS": "django_tasks_rq.Job"}
    django_rq.get_connection("default").flushdb()
    yield
    django_rq.get_connection("default").flushdb()


@pytest.mark.django_db
def test_analyses_queued_on_redis_are_run_by_an_rq_worker_exactly_once(owner_client, test_site, settings, rq_settings):
    import django_rq
    from rq import SimpleWorker

    settings.REPORTS_ANALYSIS_WAIT = 0
    response = owner_client.post(URL, {"url": test_site.url("/good")})
    assert response.status_code == status.HTTP_202_ACCEPTED
    report_id = response.json()["data"]["id"]
    queue = django_rq.get_queue("default")
    assert queue.count == 1
    first_id = queue.job_ids[0]
    duplicate = tasks.analyze_report.enqueue(report_id, 1)  # the same analysis delivered twice

    # In this process (SimpleWorker does not fork), so it shares the test's database transaction.
    django_rq.get_worker("default", worker_class=SimpleWorker).work(burst=True)

    report = Report.objects.get(pk=report_id)
    assert report.status == Report.Status.DONE
    assert report.results["seo"]["title"]["passed"] is True
    outcomes = [task_backends["default"].get_result(job_id).return_value for job_id in (first_id, duplicate.id)]
    assert outcomes == ["done", "skipped"]


@pytest.fixture
def rq_redis(settings, monkeypatch):
    """The RQ backend on a redis-server of the test's own, which the test stops and starts again."""
    monkeypatch.setattr(tasks, "backend_outage", RedisOutage(tasks.backend_outage.consequence, log=tasks.logger))
    server = RedisServer()
    settings.TASKS = {"default": {"BACKEND": "django_tasks_rq.RQBackend"}}
    settings.RQ_QUEUES = {"default": {"URL": server.url}}
    settings.RQ = {"JOB_CLASS": "django_tasks_rq.Job"}
    yield server
    server.stop()


def run_rq_worker_burst() -> list[str]:
    """Run every job queued on Redis in this process (sharing the test's transaction); return their outcomes."""
    import django_rq
    from rq import SimpleWorker

    job_ids = django_rq.get_queue("default").job_ids
    django_rq.get_worker("default", worker_class=SimpleWorker).work(burst=True)
    return [task_backends["default"].get_result(job_id).return_value for job_id in job_ids]


@pytest.fixture
def unanswering_port():
    """A port where connecting hangs, as to a host that is gone: a listener whose accept queue is full."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    waiting = []
    for _ in range(4):  # what the queue holds; the kernel drops the connection attempts after these
        client = socket.socket()
        client.setblocking(False)
        client.connect_ex(listener.getsockname())
        waiting.append(client)
    yield listener.getsockname()[1]
    for sock in [*waiting, listener]:
        sock.close()


@pytest.mark.django_db
def test_with_redis_not_answering_a_create_answers_at_once_and_waits_for_the_sweep(
    owner_client, test_site, settings, monkeypatch, unanswering_port
):
    monkeypatch.setattr(tasks, "backend_outage", RedisOutage(tasks.backend_outage.consequence, log=tasks.logger))
    # The RQ queue as the settings make it for a deployment whose Redis host is gone.
    configured = subprocess.run(
        [sys.executable, "-c", "from django.conf import settings; print(settings.RQ_QUEUES['default']['URL'])"],
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "TASKS_BACKEND": "rq",
            "REDIS_URL": f"redis://127.0.0.1:{unanswering_port}/0",
            "REDIS_TIMEOUT": "0.5",
        },
        cwd=PROJECT_DIR,
        capture_output=True,
        text=True,
        check=True,
    )
    settings.TASKS = {"default": {"BACKEND": "django_tasks_rq.RQBackend"}}
    settings.RQ_QUEUES = {"default": {"URL": configured.stdout.strip()}}
    settings.RQ = {"JOB_CLASS": "django_tasks_rq.Job"}
    settings.REPORTS_ANALYSIS_WAIT = 60  # a create that waited for an analysis on no queue would take this long

    started = time.monotonic()
    response = owner_client.post(URL, {"url": test_site.url("/good")})

    # REDIS_TIMEOUT, not redis-py's default connect timeout of 5 s, for every create while it is gone.
    assert time.monotonic() - started < 2.5
    assert response.status_code == status.HTTP_202_ACCEPTED
    report = Report.objects.get()
    assert (report.status, report.analysis_run) == (Report.Status.QUEUED, 1)
    assert report.lease_until is not None  # on no queue: requeue_stale_analyses() queues it once Redis answers


@pytest.mark.django_db
def test_with_redis_down_creates_stay_queued_and_are_analysed_once_when_it_is_back(
    owner_client, test_site, settings, rq_redis, caplog
):
    settings.REPORTS_ANALYSIS_WAIT = 60  # a create that waited for an analysis on no queue would take this long
    rq_redis.stop()

    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="reports.tasks"):
        responses = [owner_client.post(URL, {"url": test_site.url("/good")}) for _ in range(3)]
    answered_in = time.monotonic() - started

    assert [r.status_code for r in responses] == [status.HTTP_202_ACCEPTED] * 3
    assert answered_in < 30
    ids = [r.json()["data"]["id"] for r in responses]
    assert [r.json()["data"]["status"] for r in responses] == ["queued"] * 3
    assert [r["Location"] for r in responses] == [f"http://testserver{URL}/{report_id}" for report_id in ids]
    assert list(Report.objects.filter(pk__in=ids).values_list("status", "analysis_run")) == [("queued", 1)] * 3
    # One warning for the outage, not one per request.
    assert [r.message.split(":")[0] for r in caplog.records] == ["Redis is unreachable (ConnectionError"]

    assert tasks.requeue_stale_analyses() == 0  # still down: the sweep neither fails nor drops them
    assert list(Report.objects.filter(pk__in=ids).values_list("status", "analysis_run")) == [("queued", 1)] * 3

    rq_redis.start()
    assert tasks.requeue_stale_analyses() == 3
    assert run_rq_worker_burst() == ["done"] * 3

    reports = Report.objects.filter(pk__in=ids)
    assert [(r.status, r.analysis_run, r.lease_until) for r in reports] == [("done", 2, None)] * 3
    assert all(r.results["seo"]["title"]["passed"] for r in reports)
    assert tasks.requeue_stale_analyses() == 0  # nothing left to queue: each analysis ran once
    assert run_rq_worker_burst() == []
    assert tasks.backend_outage.since is None


@pytest.mark.django_db
def test_with_redis_down_a_rerun_through_the_api_or_the_admin_stays_queued_until_it_is_back(
    owner_client, admin_client, user, test_site, settings, rq_redis
):
    settings.REPORTS_ANALYSIS_WAIT = 60
    by_api, by_admin = ReportFactory.create_batch(2, owner=user, url=test_site.url("/good"), score=1)
    rq_redis.stop()

    patched = owner_client.patch(f"{URL}/{by_api.pk}", {"results": 1})
    put = owner_client.put(f"{URL}/{by_api.pk}", {"results": 1})
    admin = admin_client.post(
        "/admin/reports/report/", {"action": "rerun_analysis", "_selected_action": [by_admin.pk]}, follow=True
    )

    assert (patched.status_code, put.status_code) == (status.HTTP_202_ACCEPTED, status.HTTP_202_ACCEPTED)
    assert put["Location"] == f"http://testserver{URL}/{by_api.pk}"
    assert put.json()["data"]["score"] == 1  # the last results until the new analysis is done
    assert admin.status_code == 200
    assert b"Queued 1 analysis(es)." in admin.content
    assert sorted(Report.objects.values_list("status", "analysis_run")) == [("queued", 2), ("queued", 3)]

    rq_redis.start()
    assert tasks.requeue_stale_analyses() == 2
    assert run_rq_worker_burst() == ["done", "done"]
    assert sorted(Report.objects.values_list("status", "analysis_run")) == [("done", 3), ("done", 4)]


@pytest.mark.django_db(transaction=True)
def test_with_another_backend_the_worker_only_queues_again_the_stale_analyses(settings):
    settings.TASKS = NEVER_RUN_BACKEND
    settings.REPORTS_ANALYSIS_LEASE = 3  # sweeps every second
    stale = ReportFactory(status=Report.Status.RUNNING, lease_until=timezone.now() - timedelta(seconds=1))
    sweeper = AnalysisWorker(threads=1, interval=0.05, backend_name="default", worker_id="sweeper", claims=False)
    thread = threading.Thread(target=sweeper.run)
    thread.start()
    try:
        stale = wait_for_status(stale.pk, "queued", timeout=10)
    finally:
        sweeper.stopping.set()
        thread.join(timeout=10)

    assert stale.analysis_run == 2


@pytest.mark.parametrize("nice", ["-1", "20"])
def test_the_worker_refuses_a_niceness_outside_0_to_19(nice):
    with pytest.raises(CommandError, match="--nice must be between 0 and 19"):
        call_command("analysis_worker", f"--nice={nice}")
