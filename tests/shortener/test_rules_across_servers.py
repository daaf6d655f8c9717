"""Redirect rules on two real servers sharing one PostgreSQL database (issue 46): each worker
evaluates them from its cached copy, counts each visitor once on the link and in its rule, and
follows an edit of the rules made elsewhere."""

import time

import httpx
import pytest
from django.db import connection

from shortener.models import ShortLink, VisitBreakdown
from shortener.rules import FALLBACK, clean_rules, rule_key
from tests.polling import eventually
from tests.servers import Server, served_database_url, server_env, two_servers
from tests.shortener.factories import ShortLinkFactory
from tests.shortener.test_rules import ANDROID, FIREFOX, IPHONE, THREE_RULES

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def servers(django_db_setup, django_db_blocker):
    env = server_env(served_database_url(connection), SHORTENER_VISIT_FLUSH_SECONDS="0.5")
    with two_servers(env, workers=2, ready_timeout=120) as both:  # a long start on a loaded machine
        yield both


def visit(server: Server, path: str, agent: str, visitor: str) -> str:
    """The redirect's target for one visitor (the servers see every test client at 127.0.0.1: a
    visitor is told apart by the end of its User-Agent)."""
    with httpx.Client(timeout=10) as client:
        return client.get(f"{server.url}{path}", headers={"User-Agent": f"{agent} {visitor}"}).headers["Location"]


def test_both_servers_follow_the_rules_from_their_cache_and_count_each_rule_once(servers):
    link = ShortLinkFactory(code="ruled", url="https://example.com/", rules=clean_rules(THREE_RULES), forward_path=True)
    agents = [IPHONE, ANDROID, FIREFOX]

    # Each visitor twice on each server (whichever worker answers, and the second time from its cache).
    for number in range(6):
        agent = agents[number % 3]
        expected = ["https://apps.apple.com/app", "https://play.google.com/app", "https://example.com/"][number % 3]
        for server in servers * 2:
            assert visit(server, "/s/ruled", agent, f"visitor-{number}") == expected
    assert visit(servers[1], "/s/ruled/more/path", IPHONE, "visitor-99") == "https://apps.apple.com/app/more/path"

    keys = [rule_key(rule) for rule in link.rules]
    expected_rows = {keys[0]: 3, keys[1]: 2, FALLBACK: 2}

    def rule_counts() -> dict[str, int]:
        return dict(VisitBreakdown.objects.filter(link=link, dimension="rules").values_list("name", "visits"))

    eventually(lambda: rule_counts() == expected_rows, message=lambda: f"the rules' counts: {rule_counts()}")
    link.refresh_from_db()
    assert link.counter == 7  # each visitor once, whichever server and rule

    # An edit of the rules on neither server reaches both (their version watchers read every 0.5 s).
    link.rules = clean_rules([{"when": {"device": "desktop"}, "url": "https://desk.example/"}])
    link.save(update_fields=["rules"])  # its signal bumps the version every worker watches
    time.sleep(1.5)
    for server in servers:
        for _ in range(4):  # whichever worker answers
            assert visit(server, "/s/ruled", FIREFOX, "visitor-200") == "https://desk.example/"
            assert visit(server, "/s/ruled", IPHONE, "visitor-201") == "https://example.com/"
    assert ShortLink.objects.get(pk=link.pk).rules[0]["url"] == "https://desk.example/"
