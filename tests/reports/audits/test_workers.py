"""Audits on the real task engines: the database backend's worker (threads, and a killed process) and RQ."""

import itertools
import signal
import threading

import pytest
from rest_framework import status

from reports.management.commands.analysis_worker import AnalysisWorker
from reports.models import Audit, CrawlHostSlot, Report
from tests.polling import eventually
from tests.reports.test_tasks import DATABASE_BACKEND, rq_settings, start_worker_process  # noqa: F401

URL = "/api/v1/audits"


@pytest.fixture
def worker(settings):
    """An analysis worker on the database backend with 4 threads, in this process."""
    settings.TASKS = DATABASE_BACKEND
    worker = AnalysisWorker(threads=4, interval=0.05, backend_name="default", worker_id="audit-worker")
    thread = threading.Thread(target=worker.run)
    thread.start()
    yield worker
    worker.stopping.set()
    thread.join(timeout=60)


@pytest.fixture
def many_pages(audit_site):
    """A site of 40 linked pages under /many/, each taking 0.2 s to answer, and nothing else linked."""
    audit_site.pages = 40
    audit_site.page_delay = 0.2
    audit_site.sitemap = ["/many/0"]  # no way to the traps: every page found is a good one
    return audit_site


def wait_done(audit_id: int, timeout: float = 90) -> Audit:
    return eventually(
        lambda: Audit.objects.filter(pk=audit_id, status__in=["done", "failed"]).first(),
        timeout=timeout,
        message=lambda: f"audit {audit_id} is {Audit.objects.get(pk=audit_id).status}",
    )


@pytest.mark.django_db(transaction=True)
def test_four_worker_threads_crawl_to_max_pages_with_at_most_two_fetches_of_the_host_at_once(
    owner_client, many_pages, worker
):
    response = owner_client.post(URL, {"url": many_pages.url("/many/0"), "max_pages": 12}, format="json")
    assert response.status_code == status.HTTP_202_ACCEPTED

    audit = wait_done(response.json()["data"]["id"])

    assert (audit.status, audit.pages_found, audit.pages_done, audit.pages_failed) == ("done", 12, 12, 0)
    assert Report.objects.filter(audit=audit).count() == 12
    assert many_pages.peak <= 2
    # Each page (the sitemap's among them) was fetched once.
    paths = {url.split(str(many_pages.server.server_port), 1)[1] for url in audit.pages.values_list("url", flat=True)}
    fetched = [path for method, path in many_pages.requests if method == "GET" and path in paths]
    assert sorted(fetched) == sorted(paths)
    assert len(many_pages.page_starts) == 12
    assert not CrawlHostSlot.objects.exclude(holder="").exists()  # every slot given back


@pytest.mark.django_db(transaction=True)
def test_a_crawl_delay_spaces_the_fetches_of_the_host(owner_client, many_pages, worker):
    many_pages.extra_robots = "Crawl-delay: 1\n"
    many_pages.page_delay = 0

    response = owner_client.post(URL, {"url": many_pages.url("/many/0"), "max_pages": 4}, format="json")
    audit = wait_done(response.json()["data"]["id"])

    assert (audit.pages_done, audit.crawl_delay) == (4, 1.0)
    starts = many_pages.page_starts
    assert len(starts) == 4
    # One at a time, a second apart: three gaps of at least a second between the slots' takes. The
    # server sees each fetch a little after its take (the fetcher's set-up), so allow some of that.
    assert starts[-1] - starts[0] >= 2.5
    assert min(later - earlier for earlier, later in itertools.pairwise(starts)) >= 0.5


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_crawl_loses_nothing(owner_client, many_pages, settings):
    settings.TASKS = DATABASE_BACKEND
    many_pages.page_delay = 1.0
    response = owner_client.post(URL, {"url": many_pages.url("/many/0"), "max_pages": 6}, format="json")
    audit_id = response.json()["data"]["id"]
    first = start_worker_process(threads=2)
    try:
        eventually(lambda: Report.objects.filter(audit_id=audit_id, status="running").exists(), timeout=60)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    second = start_worker_process(threads=2)
    try:
        audit = wait_done(audit_id, timeout=180)
    finally:
        second.terminate()
        second.wait(timeout=30)

    errors = list(Report.objects.filter(audit_id=audit_id, status="failed").values_list("url", "error"))
    assert (audit.status, audit.pages_found, audit.pages_done, audit.pages_failed) == ("done", 6, 6, 0), errors
    runs = list(Report.objects.filter(audit_id=audit_id).values_list("analysis_run", flat=True))
    assert max(runs) == 2  # the pages the killed worker held were queued again, once


@pytest.mark.django_db
def test_an_rq_worker_runs_the_whole_crawl(owner_client, audit_site, settings, rq_settings):  # noqa: F811
    import django_rq
    from rq import SimpleWorker

    response = owner_client.post(URL, {"url": audit_site.url("/a")}, format="json")
    audit_id = response.json()["data"]["id"]
    assert Audit.objects.get(pk=audit_id).status == "queued"
    assert django_rq.get_queue("default").count == 1  # the start; pages are queued as they are found

    # In this process (SimpleWorker does not fork), so it shares the test's database transaction.
    django_rq.get_worker("default", worker_class=SimpleWorker).work(burst=True)

    audit = Audit.objects.get(pk=audit_id)
    assert audit.status == "done"
    urls = set(Report.objects.filter(audit_id=audit_id).values_list("url", flat=True))
    assert {audit_site.url(p) for p in ("/a", "/b", "/c?x=1", "/", "/from-sitemap")} <= urls
    assert audit.pages_found == len(urls) == audit.pages_done + audit.pages_failed


@pytest.mark.django_db
def test_max_pages_stops_the_crawl(owner_client, audit_site):
    response = owner_client.post(URL, {"url": audit_site.url("/"), "max_pages": 3}, format="json")

    data = owner_client.get(f"{URL}/{response.json()['data']['id']}").json()["data"]
    assert (data["status"], data["pages_found"]) == ("done", 3)
    assert data["pages_done"] + data["pages_failed"] == 3


@pytest.mark.django_db
def test_robots_txt_that_disallows_the_start_page_fails_the_audit(owner_client, audit_site):
    response = owner_client.post(URL, {"url": audit_site.url("/private/secret")}, format="json")

    data = owner_client.get(f"{URL}/{response.json()['data']['id']}").json()["data"]
    assert data["status"] == "failed"
    assert data["error"] == "The site's robots.txt does not allow crawling the start page."
    assert not audit_site.fetched("/private/secret")
