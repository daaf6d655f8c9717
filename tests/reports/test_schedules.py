"""Scheduled re-runs: each due period of a project runs once, on the database backend's workers or RQ's scheduler."""

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from reports import schedules, services
from reports.models import Audit, Project, Report, Webhook
from tests.polling import eventually
from tests.reports.factories import ProjectFactory, ReportFactory
from tests.reports.test_tasks import DATABASE_BACKEND, PROJECT_DIR, rq_settings  # noqa: F401 (a fixture)
from tests.reports.webhook_receiver import Receiver

NOW = datetime(2026, 11, 24, 3, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def scheduled_project(owner, schedule="daily", *, at=NOW, name=None) -> Project:
    """A project whose schedule was set at `at` (so first due one period later)."""
    project = ProjectFactory(owner=owner, **({"name": name} if name else {}))
    with time_machine.travel(at, tick=False):
        return services.project_update(project=project, schedule=schedule)


@pytest.fixture
def database_backend(settings):
    settings.TASKS = DATABASE_BACKEND


# --- In this process, time moved with time-machine ---------------------------------


@pytest.mark.django_db
def test_nothing_runs_before_the_due_time(user, database_backend):
    project = scheduled_project(user)
    ReportFactory(owner=user, project=project)

    with time_machine.travel(NOW + DAY - timedelta(seconds=1), tick=False):
        ran = schedules.run_due_schedules()

    assert ran == 0
    assert project.reports.count() == 1
    project.refresh_from_db()
    assert (project.next_run_at, project.last_run_at) == (NOW + DAY, None)


@pytest.mark.django_db
def test_a_due_project_is_re_run_once_with_a_new_queued_report_of_each_url(user, database_backend):
    project = scheduled_project(user)
    first = ReportFactory(owner=user, project=project, url="https://shop.example/")
    ReportFactory(owner=user, project=project, url="https://shop.example/")  # the same URL again
    other = ReportFactory(owner=user, project=project, url="https://shop.example/cart")

    with time_machine.travel(NOW + DAY, tick=False):
        ran = schedules.run_due_schedules()
        again = schedules.run_due_schedules()

    assert (ran, again) == (1, 0)
    new = project.reports.filter(pk__gt=other.pk).order_by("url")
    assert [(r.url, r.status, r.analysis_run, r.owner_id) for r in new] == [
        ("https://shop.example/", "queued", 1, user.pk),
        ("https://shop.example/cart", "queued", 1, user.pk),
    ]
    queued = sorted(tuple(t.args_kwargs["args"]) for t in DBTaskResult.objects.ready())
    assert queued == sorted((r.pk, 1) for r in new)  # each analysis queued with its report
    project.refresh_from_db()
    assert (project.last_run_at, project.next_run_at) == (NOW + DAY, NOW + 2 * DAY)
    assert first.pk not in {r.pk for r in new}


@pytest.mark.django_db
def test_a_due_project_with_a_site_audit_re_runs_its_last_audit(user, database_backend):
    project = scheduled_project(user)
    ReportFactory(owner=user, project=project, url="https://shop.example/blog")
    older = Audit.objects.create(owner=user, project=project, url="https://shop.example/old", max_pages=5)
    last = Audit.objects.create(
        owner=user,
        project=project,
        url="https://shop.example/",
        max_pages=20,
        privacy=Report.Privacy.PRIVATE,
        status=Audit.Status.DONE,
        finished_at=NOW,
    )
    reports_before = project.reports.count()

    with time_machine.travel(NOW + DAY, tick=False):
        ran = schedules.run_due_schedules()

    assert ran == 1
    new = Audit.objects.filter(project=project).exclude(pk__in=[older.pk, last.pk]).get()
    assert (new.url, new.max_pages, new.privacy, new.status, new.owner_id) == (
        "https://shop.example/",
        20,
        Report.Privacy.PRIVATE,
        Audit.Status.QUEUED,
        user.pk,
    )
    assert project.reports.count() == reports_before  # the audit, not the reports' URLs, is run again
    queued = [t.task_path for t in DBTaskResult.objects.ready()]
    assert queued == ["reports.audits.crawl.start_audit"]  # its start queued with its row


@pytest.mark.django_db
def test_missed_periods_run_once_and_the_next_keeps_the_phase(user, database_backend):
    project = scheduled_project(user)
    ReportFactory(owner=user, project=project)
    late = NOW + 4 * DAY + timedelta(hours=2)  # three periods missed: no worker for days

    with time_machine.travel(late, tick=False):
        ran = schedules.run_due_schedules()

    assert ran == 1
    assert project.reports.count() == 2
    project.refresh_from_db()
    assert (project.last_run_at, project.next_run_at) == (late, NOW + 5 * DAY)


@pytest.mark.django_db
def test_a_weekly_schedule_runs_a_week_after_it_is_set(user, database_backend):
    project = scheduled_project(user, "weekly")
    ReportFactory(owner=user, project=project)

    with time_machine.travel(NOW + 6 * DAY, tick=False):
        assert schedules.run_due_schedules() == 0
    with time_machine.travel(NOW + 7 * DAY, tick=False):
        assert schedules.run_due_schedules() == 1

    project.refresh_from_db()
    assert project.next_run_at == NOW + 14 * DAY


@pytest.mark.django_db
def test_the_re_run_keeps_each_urls_privacy_and_password(user, database_backend):
    project = scheduled_project(user)
    ReportFactory(owner=user, project=project, url="https://shop.example/open")
    ReportFactory(owner=user, project=project, url="https://shop.example/mine", privacy=Report.Privacy.PRIVATE)
    locked = ReportFactory(owner=user, project=project, url="https://shop.example/locked", page_password="s3cret")

    with time_machine.travel(NOW + DAY, tick=False):
        schedules.run_due_schedules()

    new = {r.url: r for r in project.reports.filter(pk__gt=locked.pk)}
    assert {url: r.privacy for url, r in new.items()} == {
        "https://shop.example/open": 0,
        "https://shop.example/mine": 1,
        "https://shop.example/locked": 2,
    }
    assert new["https://shop.example/locked"].check_page_password("s3cret")
    assert not new["https://shop.example/locked"].check_page_password("guess")
    assert new["https://shop.example/open"].password == new["https://shop.example/mine"].password == ""


@pytest.mark.django_db
def test_a_project_without_reports_only_moves_its_due_time(user, database_backend):
    project = scheduled_project(user)

    with time_machine.travel(NOW + DAY, tick=False):
        assert schedules.run_due_schedules() == 1

    assert project.reports.count() == 0
    project.refresh_from_db()
    assert project.next_run_at == NOW + 2 * DAY


@pytest.mark.django_db
def test_a_stopped_schedule_never_runs(user, database_backend):
    project = scheduled_project(user)
    ReportFactory(owner=user, project=project)
    services.project_update(project=project, schedule="none")

    with time_machine.travel(NOW + 30 * DAY, tick=False):
        assert schedules.run_due_schedules() == 0

    assert project.reports.count() == 1


@pytest.mark.django_db
def test_a_failing_re_run_stays_due_and_does_not_hold_up_the_others(user, database_backend, monkeypatch):
    broken = scheduled_project(user, at=NOW - timedelta(hours=1))  # due first
    fine = scheduled_project(user)
    ReportFactory(owner=user, project=broken)
    ReportFactory(owner=user, project=fine)
    rerun = schedules.project_rerun

    def fail_for_broken(*, project):
        if project.pk == broken.pk:
            ReportFactory(owner=user, project=project)  # a write that must be undone with the claim
            raise RuntimeError("disk full")
        return rerun(project=project)

    monkeypatch.setattr(schedules, "project_rerun", fail_for_broken)
    with time_machine.travel(NOW + DAY, tick=False):
        ran = schedules.run_due_schedules()

    assert ran == 1
    broken.refresh_from_db()
    fine.refresh_from_db()
    assert (broken.next_run_at, broken.last_run_at, broken.reports.count()) == (NOW + DAY - timedelta(hours=1), None, 1)
    assert (fine.next_run_at, fine.last_run_at, fine.reports.count()) == (NOW + 2 * DAY, NOW + DAY, 2)


@pytest.mark.parametrize(
    ("schedule", "due", "now", "expected"),
    [
        ("daily", NOW, NOW, NOW + DAY),
        ("daily", NOW, NOW + DAY - timedelta(seconds=1), NOW + DAY),
        ("daily", NOW, NOW + DAY, NOW + 2 * DAY),
        ("weekly", NOW, NOW + 20 * DAY, NOW + 21 * DAY),
        ("none", NOW, NOW, None),
    ],
)
def test_next_due_is_the_first_due_time_after_now_in_the_same_phase(schedule, due, now, expected):
    assert schedules.next_due(schedule, due, now) == expected


# --- Alerts of scheduled runs ------------------------------------------------------


@pytest.fixture
def receiver(settings):
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = True
    settings.REPORTS_WEBHOOK_BACKOFF = 0
    receiver = Receiver().start()
    yield receiver
    receiver.close()


@pytest.mark.django_db(transaction=True)
def test_a_scheduled_run_sends_report_done_budget_failed_and_check_regressed(user, test_site, receiver):
    # TASKS_BACKEND=immediate (the tests' default): the analyses and deliveries run at the commit.
    url = test_site.url("/good")
    previous = services.report_create(owner=user, url=url)
    previous.refresh_from_db()
    assert previous.status == Report.Status.DONE
    project = previous.project
    Project.objects.filter(pk=project.pk).update(budget={"min_score": 100})
    # Pretend the previous analysis passed every check: the page has since got worse.
    passing = {
        category: {key: {**check, "passed": True} for key, check in checks.items()}
        for category, checks in previous.results.items()
    }
    Report.objects.filter(pk=previous.pk).update(results=passing, score=100)
    Webhook.objects.create(
        project=project,
        url=receiver.url,
        events=["report.done", "budget.failed", "check.regressed"],
        secret="a-receivers-secret-0123456789",
    )
    services.project_update(project=project, schedule="daily")
    Project.objects.filter(pk=project.pk).update(next_run_at=timezone.now() - timedelta(seconds=1))  # due now

    assert schedules.run_due_schedules() == 1

    rerun = project.reports.exclude(pk=previous.pk).get()
    assert rerun.status == Report.Status.DONE
    events = {json.loads(d.body)["event"]: json.loads(d.body)["data"] for d in receiver.received}
    assert set(events) == {"report.done", "budget.failed", "check.regressed"}
    assert events["report.done"]["id"] == rerun.pk
    assert events["budget.failed"]["report"]["id"] == rerun.pk
    assert events["check.regressed"]["report"]["id"] == rerun.pk
    assert events["check.regressed"]["with"]["id"] == previous.pk
    assert {check["status"] for check in events["check.regressed"]["checks"]} == {"regressed"}


# --- Two worker processes against one database ---------------------------------------


def start_worker(backend: str, *, threads: int = 4) -> subprocess.Popen:
    """`manage.py analysis_worker` (database) or `manage.py rqworker --with-scheduler` (rq) on the test database."""
    database = connection.settings_dict
    if connection.vendor == "postgresql":
        url = f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
    else:
        url = f"sqlite:///{database['NAME']}"
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "TASKS_BACKEND": backend,
        "REPORTS_ALLOW_PRIVATE_NETWORKS": "1",
        "REPORTS_ANALYSIS_LEASE": "3",
        "REPORTS_RENDER": "0",
    }
    if backend == "rq":
        env["REDIS_URL"] = os.environ.get("REDIS_TEST_URL", "redis://127.0.0.1:6379/5")
        command = ["rqworker", "--with-scheduler", "default"]
    else:
        command = ["analysis_worker", f"--threads={threads}", "--interval=0.1"]
    return subprocess.Popen(
        [sys.executable, "manage.py", *command],
        cwd=PROJECT_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def stop(*workers: subprocess.Popen) -> None:
    for worker in workers:
        worker.terminate()
    for worker in workers:
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def due_projects(user, test_site, count: int) -> list[Project]:
    """`count` projects with one analysed report each, scheduled daily and not yet due."""
    projects = []
    for n in range(count):
        project = ProjectFactory(owner=user, name=f"p{n}.example")
        ReportFactory(owner=user, project=project, url=test_site.url(f"/good?project={n}"))
        projects.append(services.project_update(project=project, schedule="daily"))
    return projects


def assert_each_ran_once(projects: list[Project]) -> None:
    for project in projects:
        project.refresh_from_db()
        reports = list(project.reports.order_by("pk"))
        assert len(reports) == 2, (project.name, len(reports))  # the first one and one re-run
        assert project.last_run_at is not None
        assert timezone.now() < project.next_run_at <= timezone.now() + DAY
        assert reports[1].status == Report.Status.DONE and reports[1].results["seo"]["title"]["passed"]


@pytest.mark.django_db(transaction=True)
def test_two_database_workers_run_each_due_period_exactly_once(user, test_site, settings):
    settings.TASKS = DATABASE_BACKEND
    projects = due_projects(user, test_site, 12)
    workers = [start_worker("database"), start_worker("database")]
    try:
        # Both workers are up once each runs slow analyses (4 threads each: 8 at once need both).
        slow = [services.report_create(owner=user, url=test_site.url(f"/slow?delay=2&n={n}")) for n in range(8)]
        eventually(lambda: Report.objects.filter(pk__in=[r.pk for r in slow], status="running").count() == 8)

        Project.objects.filter(pk__in=[p.pk for p in projects]).update(next_run_at=timezone.now())  # all due now

        eventually(
            lambda: Report.objects.filter(project__in=projects, status="done").count() >= 2 * len(projects),
            timeout=120,
        )
    finally:
        stop(*workers)

    # Each period moved on to tomorrow in the claim that ran it: no later claim can run it again.
    assert_each_ran_once(projects)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_rq_workers_with_the_scheduler_run_a_due_period_exactly_once(user, test_site, settings, rq_settings):  # noqa: F811
    project = ProjectFactory(owner=user, name="shop.example")
    ReportFactory(owner=user, project=project, url=test_site.url("/good?rq=1"))
    workers = [start_worker("rq"), start_worker("rq")]
    try:
        # Set a day ago (as time-machine tells it): RQ's scheduler holds the run for 2 s from now.
        with time_machine.travel(timezone.now() - DAY + timedelta(seconds=2)):
            services.project_update(project=project, schedule="daily")
        project.refresh_from_db()
        due = project.next_run_at

        eventually(lambda: Report.objects.filter(project=project, status="done").count() == 2, timeout=120)
    finally:
        stop(*workers)

    assert_each_ran_once([project])
    assert project.last_run_at >= due.replace(microsecond=0)
    assert project.next_run_at == due + DAY  # and RQ's scheduler holds the job for it
    import django_rq
    from rq.registry import ScheduledJobRegistry

    registry = ScheduledJobRegistry(queue=django_rq.get_queue("default"))
    [job_id] = registry.get_job_ids()
    assert registry.get_scheduled_time(job_id) == (due + DAY).replace(microsecond=0)  # RQ keeps whole seconds


# --- RQ in this process --------------------------------------------------------------


@pytest.mark.django_db
def test_with_rq_setting_a_schedule_puts_its_run_on_rqs_scheduler(user, rq_settings):  # noqa: F811
    import django_rq
    from rq.registry import ScheduledJobRegistry

    project = ProjectFactory(owner=user)

    with time_machine.travel(NOW, tick=False):
        services.project_update(project=project, schedule="weekly")

    registry = ScheduledJobRegistry(queue=django_rq.get_queue("default"))
    [job_id] = registry.get_job_ids()
    assert registry.get_scheduled_time(job_id) == NOW + 7 * DAY
    assert list(django_rq.get_queue("default").fetch_job(job_id).args) == [project.pk, (NOW + 7 * DAY).isoformat()]


@pytest.mark.django_db
def test_with_rq_a_job_of_a_changed_schedule_or_delivered_twice_does_nothing(user, rq_settings):  # noqa: F811
    project = scheduled_project(user)
    ReportFactory(owner=user, project=project)
    stale = (NOW + DAY).isoformat()
    with time_machine.travel(NOW + DAY, tick=False):
        assert schedules.run_scheduled_project.call(project.pk, stale) == "ran"
        assert schedules.run_scheduled_project.call(project.pk, stale) == "skipped"  # the same job again

    assert project.reports.count() == 2
    project.refresh_from_db()
    assert project.next_run_at == NOW + 2 * DAY

    with time_machine.travel(NOW + DAY + timedelta(hours=1), tick=False):
        services.project_update(project=project, schedule="weekly")  # the daily job for NOW + 2 days is stale
    with time_machine.travel(NOW + 2 * DAY, tick=False):
        assert schedules.run_scheduled_project.call(project.pk, (NOW + 2 * DAY).isoformat()) == "skipped"
    assert project.reports.count() == 2


@pytest.mark.django_db
def test_with_rq_the_sweep_queues_an_overdue_run_whose_job_was_lost_once(user, rq_settings):  # noqa: F811
    import django_rq

    project = scheduled_project(user)
    django_rq.get_connection("default").flushdb()  # Redis lost the scheduled job

    with time_machine.travel(NOW + DAY + schedules.OVERDUE_GRACE / 2, tick=False):
        assert schedules.queue_overdue_schedules() == 0  # RQ's scheduler may still be about to run it
    with time_machine.travel(NOW + DAY + schedules.OVERDUE_GRACE * 2, tick=False):
        assert schedules.queue_overdue_schedules() == 1
        assert schedules.queue_overdue_schedules() == 0  # not again within the grace

    queue = django_rq.get_queue("default")
    assert [list(queue.fetch_job(job_id).args) for job_id in queue.job_ids] == [[project.pk, (NOW + DAY).isoformat()]]
