"""GET /metrics (issue 45, item 4): off without METRICS_TOKEN, a bearer token with it, and counts
that match the requests made across a server's two workers, read with prometheus-client's parser."""

import json
import re
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest
from django.db import connection
from prometheus_client.parser import text_string_to_metric_families

from shortener.models import ShortLink
from tests.pastes.factories import issue_key
from tests.polling import eventually
from tests.servers import BASE_DIR, Server, served_database_url, server_env
from tests.shortener.factories import ShortLinkFactory

TOKEN = "metrics-test-token-0123456789"


def samples(text: str) -> dict[str, list]:
    """Each sample of the exposition, by sample name: (labels, value)."""
    found: dict[str, list] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found.setdefault(sample.name, []).append((sample.labels, sample.value))
    return found


def total(found: dict[str, list], name: str, **labels: str) -> float:
    return sum(value for sample_labels, value in found.get(name, []) if labels.items() <= sample_labels.items())


@pytest.mark.django_db
def test_metrics_is_not_there_without_a_token(client, settings):
    settings.METRICS_TOKEN = ""

    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")

    assert response.status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("authorization", [None, "Bearer wrong-token", f"Basic {TOKEN}", f"Bearer {TOKEN}x"])
def test_metrics_refuses_a_scraper_without_the_token(client, settings, authorization):
    settings.METRICS_TOKEN = TOKEN
    headers = {"HTTP_AUTHORIZATION": authorization} if authorization else {}

    response = client.get("/metrics", **headers)

    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert TOKEN not in response.content.decode()


@pytest.mark.django_db
def test_metrics_answers_the_token_with_the_state_read_now(client, settings):
    settings.METRICS_TOKEN = TOKEN

    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    found = samples(response.content.decode())
    assert total(found, "webtools_database_up") == 1
    assert total(found, "webtools_analysis_queue_depth") == 0
    assert "webtools_analysis_queue_oldest_age_seconds" in found


@pytest.mark.postgres
@pytest.mark.timeout(900)
@pytest.mark.django_db(transaction=True)
def test_counts_match_the_requests_made_across_two_workers(user):
    link = ShortLinkFactory(owner=user, url="https://example.com/metrics-target")
    key = issue_key(user)
    directory = tempfile.mkdtemp(prefix="metrics-test-")
    env = server_env(
        served_database_url(connection),
        METRICS_TOKEN=TOKEN,
        PROMETHEUS_MULTIPROC_DIR=directory,
        SHORTENER_VISIT_FLUSH_SECONDS="0.2",
    )
    server = Server(env, workers=2, ready_timeout=120)
    made: Counter[tuple[str, str, str]] = Counter()
    # A new connection for each request, so that granian spreads them over both workers.
    http = httpx.Client(limits=httpx.Limits(max_keepalive_connections=0), timeout=30)

    def scrape() -> dict[str, list]:
        response = http.get(f"{server.url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert response.status_code == 200
        return samples(response.text)

    try:
        # What came before (the server's readiness probes of /healthz): the counts below are on top.
        # A probe its client gave up on (2 s, on a loaded machine) may still be answered and counted
        # later: wait until two scrapes 2.5 s apart agree.
        def settled() -> dict[str, list] | None:
            first = scrape()
            time.sleep(2.5)
            second = scrape()
            probes = [total(found, "webtools_http_requests_total", route="healthz") for found in (first, second)]
            return second if probes[0] == probes[1] else None

        before = eventually(settled, timeout=60, message="the readiness probes were still being counted")
        for _ in range(40):
            status = http.get(f"{server.url}/healthz").status_code
            made["other", "healthz", str(status)] += 1
        for n in range(30):
            response = http.get(f"{server.url}/s/{link.code}", headers={"User-Agent": f"Mozilla/5.0 visitor-{n}"})
            assert response.status_code == 302
            made["shortener", "shortener:redirect", "302"] += 1
        for n in range(10):
            response = http.post(
                f"{server.url}/pastes/create", json={"name": f"p{n}", "content": "x"}, headers={"Authorization": key}
            )
            assert response.status_code == 200, response.text
            made["pastes", "pastes:paste-create", "200"] += 1
        for n in range(5):
            assert http.get(f"{server.url}/no/such/page/{n}").status_code == 404
            made["other", "unrouted", "404"] += 1
        assert http.get(f"{server.url}/metrics").status_code == 401
        made["other", "metrics", "401"] += 1

        # Both workers counted some of them: each writes its own files.
        pids = {path.stem.rsplit("_", 1)[1] for path in Path(directory).glob("counter_*.db")}
        assert len(pids) >= 2, pids
        # Visits are written by each worker's flusher, shortly after.
        eventually(lambda: ShortLink.objects.get(pk=link.pk).counter == 30, message=server.output)

        def scraped() -> dict[str, list]:
            found = scrape()
            return found if total(found, "webtools_shortener_visits_flushed_total") >= 30 else {}

        found = eventually(scraped, message=server.output)
    finally:
        http.close()
        server.stop()

    def added(name: str, **labels: str) -> float:
        return total(found, name, **labels) - total(before, name, **labels)

    for (interface, route, status), count in made.items():
        labels = {"interface": interface, "route": route, "status": status}
        assert added("webtools_http_requests_total", **labels) == count, labels
        assert added("webtools_http_request_duration_seconds_count", interface=interface, route=route) >= count
    # The scrapes themselves are the only other requests counted (each after its own answer).
    others = added("webtools_http_requests_total") - sum(made.values())
    assert others == added("webtools_http_requests_total", route="metrics", status="200") >= 1
    assert total(found, "webtools_shortener_redirects_total", outcome="followed") == 30
    assert total(found, "webtools_shortener_visits_buffered_total") == 30
    assert total(found, "webtools_shortener_visits_flushed_total") == 30
    assert total(found, "webtools_shortener_visits_lost_total") == 0
    assert total(found, "webtools_database_up") == 1
    assert total(found, "webtools_analysis_queue_depth") == 0


def test_the_grafana_dashboard_asks_only_for_metrics_the_service_exposes():
    dashboard = json.loads((BASE_DIR / "deploy" / "grafana-dashboard.json").read_text())
    asked = {
        name
        for panel in dashboard["panels"]
        for target in panel["targets"]
        for name in re.findall(r"webtools_\w+", target["expr"])
    }
    source = (BASE_DIR / "common" / "metrics.py").read_text()
    exposed = {f"webtools_{name}" for name in re.findall(r'f"\{PREFIX\}_(\w+)"', source)}
    suffixes = ("_total", "_bucket", "_count", "_sum")
    unknown = {
        name for name in asked if name not in exposed and not any(name.removesuffix(s) in exposed for s in suffixes)
    }
    assert len(asked) >= 12
    assert not unknown, unknown
