"""max_visits holds across processes and servers (issue 20, item 2): two real servers, two workers each.

Every worker used to pass its own allowance of a limited link before the visits were written:
a one-visit link opened for two people, and five-visit links took ten sequential visits.
PostgreSQL only (several processes on one database).
"""

import datetime
import time
from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import httpx
import pytest
from django.db import connection
from django.utils import timezone

from shortener.models import ShortLink
from tests.servers import served_database_url, server_env, two_servers
from tests.shortener.factories import ShortLinkFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PARALLEL = 8


@pytest.fixture(scope="module")
def servers(django_db_setup, django_db_blocker):
    env = server_env(served_database_url(connection), SHORTENER_VISIT_FLUSH_SECONDS="0.5")
    with two_servers(env, workers=2) as both:
        yield both


def follow(url: str, user_agent: str) -> int:
    with httpx.Client(timeout=10) as client:
        return client.get(url, headers={"User-Agent": user_agent}).status_code


def test_a_one_visit_link_opens_once_for_parallel_visitors_on_two_servers(servers):
    links = [ShortLinkFactory(code=f"once{n}", max_visits=1) for n in range(10)]

    redirects = {}
    for link in links:
        barrier = Barrier(PARALLEL)

        def visit(n: int, code: str = link.code, barrier: Barrier = barrier) -> int:
            server = servers[n % 2]
            barrier.wait()
            return follow(f"{server.url}/s/{code}", f"Mozilla/5.0 visitor-{code}-{n}")

        with ThreadPoolExecutor(PARALLEL) as pool:
            answers = list(pool.map(visit, range(PARALLEL)))
        redirects[link.code] = answers.count(302)
        assert sorted(answers) == [302] + [404] * (PARALLEL - 1), answers

    assert redirects == {link.code: 1 for link in links}
    assert list(ShortLink.objects.filter(code__startswith="once").values_list("counter", flat=True)) == [1] * 10


def test_sequential_visits_across_servers_never_overshoot_the_limit(servers):
    ShortLinkFactory(code="five", max_visits=5)

    answers = []
    for n in range(10):
        answers.append(follow(f"{servers[n % 2].url}/s/five", f"Mozilla/5.0 one-after-another-{n}"))
        time.sleep(0.3)

    assert answers == [302] * 5 + [404] * 5
    assert ShortLink.objects.get(code="five").counter == 5


def test_a_link_stops_at_its_expiry_on_every_server(servers):
    expires_at = timezone.now() + datetime.timedelta(seconds=3)
    ShortLinkFactory(code="soon", expires_at=expires_at)
    deadline = expires_at.timestamp()

    answers = []  # (sent, answered, status)
    for n in range(25):
        sent = time.time()
        status = follow(f"{servers[n % 2].url}/s/soon", f"Mozilla/5.0 until-expiry-{n}")
        answers.append((sent, time.time(), status))
        time.sleep(0.2)

    assert all(status == 302 for sent, answered, status in answers if answered < deadline)
    assert all(status == 404 for sent, answered, status in answers if sent >= deadline)
    assert {status for *_, status in answers} == {302, 404}
