"""Moderation and imports under parallel requests on PostgreSQL (issue 46)."""

import pytest

from shortener.importers.common import ForeignLink
from shortener.importers.saving import import_one
from shortener.models import LinkReport, ShortLink
from shortener.moderation import reports
from tests.concurrency import run_concurrently
from tests.shortener.factories import ShortLinkFactory, UserFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 8


def test_parallel_imports_of_one_code_by_several_users_create_it_once_and_refuse_the_others():
    users = iter([UserFactory().pk for _ in range(THREADS)])
    line = ForeignLink(1, "shlink", url="https://same.example/", code="shared")
    line.custom = line.code  # as transfer.ImportItem names it

    def import_for_one_user() -> str:
        return import_one(next(users), line)[0]

    outcomes = run_concurrently(import_for_one_user, times=THREADS)

    assert sorted(outcomes) == ["created"] + ["refused"] * (THREADS - 1)
    assert ShortLink.objects.filter(code="shared").count() == 1


def test_parallel_reports_and_a_disable_leave_no_open_report_behind_the_disable():
    link = ShortLinkFactory(code="hot")
    for number in range(THREADS):
        reports.report_create(link=link, reason=f"report {number}")

    def disable() -> None:
        reports.link_disable(link=ShortLink.objects.get(pk=link.pk), reason="parallel")

    results = run_concurrently(disable, times=THREADS)

    assert results == [None] * THREADS
    assert ShortLink.objects.get(pk=link.pk).is_disabled
    assert not LinkReport.objects.filter(resolved_at__isnull=True).exists()
