"""Scale-out, proved (issue 11, item 6): two app servers, separate processes, one PostgreSQL and one Redis.

Cookies belong to a host, not a port, so one HTTP client carries the same session to both.
"""

import subprocess
import sys

import httpx
import pytest
import redis
from django.contrib.auth import get_user_model

from reports.models import ApiKey as ReportsApiKey
from reports.models import Report
from shortener.models import ShortLink
from tests.polling import eventually
from tests.reports.factories import ReportFactory
from tests.reports.testsite import TestSite
from tests.servers import BASE_DIR, Server, served_database_url, served_password, server_env, two_servers
from tests.shortener.factories import ShortLinkFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ADMIN_PASSWORD = "scale-out-admin-password"
LOGIN_LIMIT = 5
MAX_BAD_PASSWORDS = 3
JSON = {"_format": "json"}


@pytest.fixture(scope="module")
def servers(django_db_setup, django_db_blocker, redis_server):
    from django.db import connection

    env = server_env(
        served_database_url(connection),
        REDIS_URL=redis_server.url,
        SHORTENER_ADMINPWD=ADMIN_PASSWORD,
        ACCOUNTS_SIGNIN_ACCOUNT_FAILURES=str(LOGIN_LIMIT),
        SHORTENER_ADMIN_MAX_BAD_PASSWORDS=str(MAX_BAD_PASSWORDS),
        # Analyses go to the worker below; the servers answer 202 at once.
        TASKS_BACKEND="database",
        REPORTS_ANALYSIS_WAIT="0",
        REPORTS_ALLOW_PRIVATE_NETWORKS="1",
    )
    with two_servers(env, workers=1) as both:
        yield both


@pytest.fixture(scope="module")
def analysis_worker(servers):
    """`manage.py analysis_worker`, as make run starts it beside the servers."""
    from django.db import connection

    env = server_env(served_database_url(connection), TASKS_BACKEND="database", REPORTS_ALLOW_PRIVATE_NETWORKS="1")
    process = subprocess.Popen(
        [sys.executable, "manage.py", "analysis_worker", "--threads=2", "--interval=0.1"],
        cwd=BASE_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    yield process
    process.terminate()
    process.wait(timeout=30)


@pytest.fixture(scope="module")
def site():
    site = TestSite()
    yield site
    site.close()


@pytest.fixture(autouse=True)
def _fresh_redis(redis_server):
    # Rate-limit and ban counters of one test must not carry into the next.
    redis.Redis.from_url(redis_server.url).flushall()


@pytest.fixture
def alice(db):
    return get_user_model().objects.create(username="alice", password=served_password("alice-password"))


@pytest.fixture
def browser() -> httpx.Client:
    with httpx.Client(timeout=5) as client:
        yield client


def login(client: httpx.Client, server: Server, password: str = "alice-password") -> httpx.Response:
    return client.post(f"{server.url}/s/login", data={"login": "alice", "password": password, **JSON})


def test_a_session_made_on_one_server_holds_on_the_other(servers, alice, other_user, browser):
    first, second = servers
    someone_elses = ShortLinkFactory(owner=other_user)

    assert login(browser, first).json()["success"] is True
    on_second = browser.post(f"{second.url}/s/stats", data={"adminpwd": ADMIN_PASSWORD, **JSON})
    on_first = browser.get(f"{first.url}/s/stats", params=JSON)

    assert on_second.json()["success"] is True
    # Admin mode entered on the second server is seen by the first: it lists everyone's links.
    assert [item["url"] for item in on_first.json()] == [someone_elses.url]


def test_a_link_deleted_through_one_server_stops_redirecting_on_the_other(servers, alice, browser):
    first, second = servers
    link = ShortLinkFactory(owner=alice, url="https://example.com/going")
    login(browser, first)
    browser.post(f"{first.url}/s/stats", data={"adminpwd": ADMIN_PASSWORD, **JSON})
    # Both servers have the link in their caches before it goes.
    for server in servers:
        assert httpx.get(f"{server.url}/s/{link.code}").status_code == 302

    deleted = browser.get(f"{first.url}/s/d/{link.code}", params=JSON)
    # How soon is the link cache's business (bench/); here, that the second server does notice.
    eventually(
        lambda: httpx.get(f"{second.url}/s/{link.code}").status_code != 302,
        message="the second server still redirects to the deleted link",
    )

    assert deleted.json()["success"] is True
    assert ShortLink.objects.get(pk=link.pk).is_deleted
    assert httpx.get(f"{second.url}/s/{link.code}").status_code == 404


def test_failed_logins_on_both_servers_count_together(servers, alice, browser):
    statuses = [login(browser, servers[n % 2], password="wrong").status_code for n in range(LOGIN_LIMIT + 1)]

    assert statuses == [401] * LOGIN_LIMIT + [429]


def test_an_admin_ban_earned_on_both_servers_holds_on_both(servers, alice, browser):
    login(browser, servers[0])

    wrong = [
        browser.post(f"{servers[n % 2].url}/s/stats", data={"adminpwd": "wrong", **JSON}).status_code
        for n in range(MAX_BAD_PASSWORDS)
    ]
    right_on_each = [
        browser.post(f"{server.url}/s/stats", data={"adminpwd": ADMIN_PASSWORD, **JSON}).status_code
        for server in servers
    ]

    assert wrong == [403] * MAX_BAD_PASSWORDS
    assert right_on_each == [429, 429]


def test_an_analysis_queued_through_either_server_runs_exactly_once(servers, analysis_worker, site, alice):
    _, key = ReportsApiKey.issue(user=alice)
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json"}
    pages = ["/good?via=first", "/good?via=second"]

    queued = [
        httpx.post(f"{server.url}/api/v1/reports", data={"url": site.url(page)}, headers=headers, timeout=10)
        for server, page in zip(servers, pages, strict=True)
    ]
    ids = [response.json()["data"]["id"] for response in queued]
    eventually(
        lambda: not Report.objects.filter(pk__in=ids).exclude(status=Report.Status.DONE).exists(),
        timeout=60,
        interval=0.1,
        message=lambda: str(list(Report.objects.filter(pk__in=ids).values("status", "error"))),
    )

    assert [response.status_code for response in queued] == [202, 202]
    assert [report.analysis_run for report in Report.objects.filter(pk__in=ids)] == [1, 1]
    # Each page was fetched by one analysis only.
    assert [site.requests().count(("GET", page)) for page in pages] == [1, 1]


def test_a_report_written_through_either_server_or_elsewhere_is_read_anew_on_both(servers, alice, redis_server):
    first, second = servers
    _, key = ReportsApiKey.issue(user=alice)
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json"}
    report = ReportFactory(owner=alice, score=40)
    show, listing = f"/api/v1/reports/{report.pk}", "/api/v1/reports"

    def read(server: Server, path: str) -> dict | list:
        return httpx.get(f"{server.url}{path}", headers=headers).json()["data"]

    for server in servers:
        for _ in range(2):
            read(server, show), read(server, listing)
    # The answers are kept in the Redis both servers share (reports/answer_cache.py).
    assert redis.Redis.from_url(redis_server.url).keys("reports-answers:*")

    changed = httpx.patch(f"{first.url}{show}", json={"privacy": 1}, headers=headers)
    assert changed.status_code == 200
    assert read(second, show)["privacy"] == 1
    assert read(second, listing)[0]["privacy"] == 1

    # What the analysis worker writes, from a process of its own.
    Report.objects.filter(pk=report.pk).update(score=91)
    assert [read(server, show)["score"] for server in servers] == [91, 91]
    assert [read(server, listing)[0]["score"] for server in servers] == [91, 91]
