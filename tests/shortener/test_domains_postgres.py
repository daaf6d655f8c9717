"""Several short domains on PostgreSQL: codes unique per domain under parallel creates, and two real servers."""

import time

import httpx
import pytest
from django.db import connection

from shortener.errors import Failure
from shortener.models import ApiKey, ShortLink
from shortener.services.links import link_create, link_delete
from tests.concurrency import run_concurrently
from tests.servers import served_database_url, server_env, two_servers
from tests.shortener.factories import ShortLinkFactory, UserFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 12
DOMAINS = ("", "two.rt")


@pytest.fixture
def two_domains(settings):
    settings.SHORTENER_DOMAINS = ["sho.rt", "two.rt"]


def test_parallel_generated_codes_stay_unique_per_domain_when_they_collide(two_domains, monkeypatch):
    user = UserFactory()
    # Every thread draws from the same few codes, so that inserts collide on (domain, code) and
    # must draw again; the same code may then be taken once on each domain.
    drawn = iter(["aaaaaaaa", "bbbbbbbb"] * THREADS + [f"c{n:07d}" for n in range(200)])
    monkeypatch.setattr(ShortLink, "generate_code", classmethod(lambda cls: next(drawn)))
    jobs = iter((DOMAINS[n % 2], f"https://example.com/{n}") for n in range(THREADS))

    def create() -> tuple[str, str]:
        domain, url = next(jobs)
        link = link_create(owner_id=user.pk, url=url, domain=domain)
        return link.domain, link.code

    results = run_concurrently(create, times=THREADS)

    assert all(isinstance(result, tuple) for result in results), results
    assert len(set(results)) == THREADS
    rows = list(ShortLink.objects.values_list("domain", "code"))
    assert len(rows) == THREADS == len(set(rows))
    for domain in DOMAINS:
        codes = [code for stored, code in rows if stored == domain]
        assert len(codes) == THREADS // 2 == len(set(codes))
        assert {"aaaaaaaa", "bbbbbbbb"} <= set(codes)  # each domain got the contended codes once


def test_parallel_creates_of_one_custom_code_give_one_winner_per_domain(two_domains):
    owners = iter(UserFactory.create_batch(THREADS))

    def create() -> str:
        owner = next(owners)
        domain = DOMAINS[owner.pk % 2]
        try:
            link_create(owner_id=owner.pk, url=f"https://example.com/{owner.pk}", domain=domain, custom="prize")
        except Failure as failure:
            return str(failure.status)
        return f"won {domain}"

    results = run_concurrently(create, times=THREADS)

    assert sorted(results) == ["409"] * (THREADS - 2) + ["won ", "won two.rt"]
    assert sorted(ShortLink.objects.filter(code="prize").values_list("domain", flat=True)) == ["", "two.rt"]


def test_parallel_creates_of_one_url_by_one_user_give_one_link_per_domain(two_domains):
    user = UserFactory()
    domains = iter(DOMAINS[n % 2] for n in range(THREADS))

    def create() -> tuple[str, str]:
        link = link_create(owner_id=user.pk, url="https://example.com/race", domain=next(domains))
        return link.domain, link.code

    results = run_concurrently(create, times=THREADS)

    assert len(set(results)) == 2
    assert sorted(ShortLink.objects.values_list("domain", flat=True)) == ["", "two.rt"]


# --- two servers, one database ---------------------------------------------


@pytest.fixture(scope="module")
def servers(django_db_setup, django_db_blocker):
    env = server_env(
        served_database_url(connection),
        SHORTENER_VISIT_FLUSH_SECONDS="0.5",
        SHORTENER_DOMAINS="sho.rt,two.rt",
        ALLOWED_HOSTS="127.0.0.1,localhost,sho.rt,two.rt",
    )
    with two_servers(env, workers=2, ready_timeout=120) as both:  # a long start on a loaded machine
        yield both


def get(url: str, host: str) -> httpx.Response:
    with httpx.Client(timeout=10) as client:
        return client.get(url, headers={"Host": host, "User-Agent": "Mozilla/5.0 domains"})


def test_both_servers_follow_each_domains_link_and_stop_when_one_is_deleted(servers):
    ShortLinkFactory(code="both", url="https://first.example/")
    second = ShortLinkFactory(code="both", domain="two.rt", url="https://second.example/")

    # Twice on each server: the second answer comes from the worker's cache (or its shortcut).
    for _ in range(2):
        for server in servers:
            assert get(f"{server.url}/both", "sho.rt").headers["Location"] == "https://first.example/"
            assert get(f"{server.url}/both", "two.rt").headers["Location"] == "https://second.example/"
            assert get(f"{server.url}/s/both", "127.0.0.1").headers["Location"] == "https://first.example/"

    link_delete(link=second)
    time.sleep(1.5)  # the version watcher of each worker reads every 0.5 s

    for server in servers:
        for _ in range(4):  # whichever worker answers
            assert get(f"{server.url}/both", "two.rt").status_code == 404
            assert get(f"{server.url}/both", "sho.rt").headers["Location"] == "https://first.example/"


def test_a_link_created_on_one_server_for_the_second_domain_works_on_the_other(servers):
    user = UserFactory()
    _api_key, token = ApiKey.issue(user=user, name="servers")
    with httpx.Client(timeout=10) as client:
        created = client.post(
            f"{servers[0].url}/s/a",
            json={"shorturl": "https://made.example/", "domain": "two.rt"},
            headers={"Authorization": f"Bearer {token}", "Host": "127.0.0.1"},
        ).json()

    code = ShortLink.objects.get(url="https://made.example/").code
    assert created["short"] == f"http://two.rt/{code}"
    assert created["domain"] == "two.rt"
    assert get(f"{servers[1].url}/{code}", "two.rt").headers["Location"] == "https://made.example/"
    assert get(f"{servers[1].url}/{code}", "sho.rt").status_code == 404
