"""Password tries at report and audit pages count across processes (issue 49, item 5).

They were counted in the cache, which without Redis is each process's memory: two processes
allowed 10 wrong tries at an audit's password instead of 5. They now count in the database.
tests/reports/test_limits_across_processes.py tries it on a real server of two processes.
"""

import pytest
from django.core.cache import cache
from django.test import Client

from reports.models import Audit
from tests.concurrency import run_concurrently
from tests.reports.audits.factories import done_audit
from tests.reports.factories import ReportFactory

LIMIT = 5


@pytest.fixture(params=["report", "audit"])
def page(request, settings, user) -> str:
    """The address of a password-protected report or audit page (password "open sesame")."""
    settings.REPORTS_PAGE_PASSWORD_ATTEMPTS = LIMIT
    if request.param == "report":
        return f"/reports/{ReportFactory(page_password='open sesame').pk}"
    audit = done_audit(user)
    audit.set_privacy(Audit.Privacy.PASSWORD, "open sesame")
    audit.save()
    return f"/audits/{audit.pk}"


@pytest.mark.django_db
def test_tries_answered_by_other_processes_count_too(client, page):
    statuses = []
    for _ in range(LIMIT + 1):
        cache.clear()  # the next try lands on another process, whose memory has counted nothing
        statuses.append(client.post(page, {"password": "guess"}).status_code)

    assert statuses == [200] * LIMIT + [429]
    cache.clear()
    refused = client.post(page, {"password": "open sesame"})
    assert refused.status_code == 429
    assert "Too many attempts" in refused.content.decode()
    assert "is password-protected" in client.get(page).content.decode()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_wrong_tries_are_answered_exactly_up_to_the_limit(page):
    statuses = run_concurrently(lambda: Client().post(page, {"password": "guess"}).status_code, times=2 * LIMIT)

    assert sorted(statuses) == [200] * LIMIT + [429] * LIMIT
