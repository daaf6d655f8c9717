"""What one audit may take in: huge sitemaps and pages, a start that never finishes, too many audits at once."""

import tracemalloc
from datetime import timedelta

import pytest
from django.utils import timezone
from django.utils.html import escape
from rest_framework import status

from reports import tasks
from reports.audits import crawl, discovery
from reports.models import Audit, Project, Report
from tests.reports.asserts import assert_reports_error

pytestmark = pytest.mark.django_db

URL = "/api/v1/audits"
NEVER_RUN_BACKEND = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}


@pytest.fixture
def queued_only(settings):
    """Tasks are queued and never run."""
    settings.TASKS = NEVER_RUN_BACKEND


def new_audit(user, url: str, **fields) -> Audit:
    project, _ = Project.objects.get_or_create(owner=user, name="localhost")
    return Audit.objects.create(owner=user, project=project, url=url, **fields)


def test_a_sitemap_index_of_four_huge_sitemaps_starts_the_audit_in_bounded_memory(user, audit_site, queued_only):
    # As reported: an index of four sitemaps of about 127,000 entries each, 2 MB apiece.
    audit_site.files["/sitemap.xml"] = (
        "application/xml",
        (
            "<sitemapindex>"
            + "".join(f"<sitemap><loc>{audit_site.url(f'/part{n}.xml')}</loc></sitemap>" for n in range(4))
            + "</sitemapindex>"
        ).encode(),
    )
    for n in range(4):
        locations = "".join(f"<loc>/{n}{i:x}</loc>" for i in range(127_000))
        audit_site.files[f"/part{n}.xml"] = ("application/xml", f"<urlset>{locations}</urlset>".encode())
    audit = new_audit(user, audit_site.url("/"), max_pages=500)

    tracemalloc.start()
    try:
        outcome = crawl.start_audit.call(audit.pk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert outcome == "started"
    audit.refresh_from_db()
    assert (audit.status, audit.pages_found, audit.error) == ("running", 500, "")
    assert Report.objects.filter(audit=audit).count() == 500
    assert peak < 100 * 1024 * 1024, f"the start took {peak / 2**20:.0f} MB"


def test_the_sitemap_entries_read_are_capped_by_the_setting(audit_site, settings):
    settings.REPORTS_AUDIT_MAX_SITEMAP_URLS = 3
    audit_site.sitemap = [f"/page{i}" for i in range(10)]

    _, pages = discovery.read_site(audit_site.url("/"))

    assert pages == [audit_site.url(f"/page{i}") for i in range(3)]


def test_a_page_of_262000_links_adds_its_first_links_as_pages(user, audit_site, queued_only):
    audit = new_audit(user, audit_site.url("/"), max_pages=50, status=Audit.Status.RUNNING)
    page = Report.objects.create(
        owner=user, project=audit.project, audit=audit, url=audit.url, status=Report.Status.RUNNING, analysis_run=1
    )
    links = [f"/p{i}" for i in range(262_000)]  # as reported; a 5 MB page holds that many

    def finish() -> bool:
        # A done page needs results; which outcome is stored does not matter to its links.
        return bool(Report.objects.filter(pk=page.pk).update(status=Report.Status.FAILED, error="Stored."))

    assert crawl.finish_page(audit.pk, finish, links) is True

    audit.refresh_from_db()
    assert (audit.status, audit.pages_found, audit.pages_failed) == ("running", 50, 1)
    assert set(audit.pages.values_list("url", flat=True)) == {audit.url} | {audit_site.url(f"/p{i}") for i in range(49)}


def test_only_the_first_links_of_a_page_are_followed(audit_site, settings):
    settings.REPORTS_AUDIT_MAX_LINKS_PER_PAGE = 2
    robots = discovery.parse_robots("")

    follow = discovery.links_to_follow(["/a", "http://other.example/", "/b", "/c"], audit_site.url("/"), robots)

    assert follow == [audit_site.url("/a")]


def test_a_start_that_never_finishes_fails_the_audit_after_its_attempts_with_the_cause(
    user, audit_site, queued_only, settings, monkeypatch, owner_client, client
):
    settings.REPORTS_AUDIT_START_ATTEMPTS = 3

    def crash(start: str) -> tuple[str, list[str]]:
        raise MemoryError  # what a worker running out of memory on a huge site does

    monkeypatch.setattr(discovery, "read_site", crash)
    audit = new_audit(user, audit_site.url("/"))

    for _ in range(10):  # the sweep runs every few seconds: never more than the attempts
        if Audit.objects.get(pk=audit.pk).status == Audit.Status.QUEUED:
            with pytest.raises(MemoryError):
                crawl.start_audit.call(audit.pk)
        # The lease of the start that died passes.
        Audit.objects.filter(pk=audit.pk, status=Audit.Status.RUNNING).update(
            lease_until=timezone.now() - timedelta(seconds=1)
        )
        tasks.requeue_stale_analyses()

    audit.refresh_from_db()
    assert (audit.status, audit.start_attempts) == ("failed", 3)
    assert audit.finished_at is not None and audit.lease_until is None
    data = owner_client.get(f"{URL}/{audit.pk}").json()["data"]
    assert data["status"] == "failed"
    assert data["error"] == (
        "The audit could not start: reading the site's robots.txt and sitemaps was tried 3 times and never "
        "finished (the worker stopped or failed each time). Run it again later."
    )
    client.force_login(user)
    page = client.get(f"/audits/{audit.pk}")
    assert page.status_code == 200 and escape(data["error"]) in page.content.decode()


def test_an_owner_may_have_only_so_many_audits_queued_or_running(owner_client, user, other_user, queued_only, settings):
    settings.REPORTS_AUDIT_MAX_QUEUED = 2
    new_audit(other_user, "https://shop.example/")
    for _ in range(2):
        assert owner_client.post(URL, {"url": "https://shop.example/"}, format="json").status_code == 202

    response = owner_client.post(URL, {"url": "https://shop.example/"}, format="json")

    assert_reports_error(
        response,
        429,
        "You have 2 audits queued or running, the most allowed at once; start this one when one of them is done.",
    )
    assert Audit.objects.filter(owner=user).count() == 2
    # Another user's audits do not count, and a finished one frees its place.
    first = Audit.objects.filter(owner=user).first()
    Audit.objects.filter(pk=first.pk).update(status=Audit.Status.DONE, finished_at=timezone.now())
    response = owner_client.post(URL, {"url": "https://shop.example/"}, format="json")
    assert response.status_code == status.HTTP_202_ACCEPTED
    assert Audit.objects.filter(owner=user).count() == 3
