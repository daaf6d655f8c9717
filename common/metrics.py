"""Prometheus metrics: what every process counts, and GET /metrics, which adds the state read at scrape time.

Off unless METRICS_TOKEN is set: then `/metrics` answers a scraper that sends
`Authorization: Bearer <METRICS_TOKEN>` and 401 anyone else; unset, `/metrics` is a 404 like
any unknown page and nothing is counted (the requests pay nothing). Several processes (granian's
workers, `analysis_worker`) count into one directory, PROMETHEUS_MULTIPROC_DIR, which
prometheus-client sums at each scrape; it must be emptied when the service starts
(scripts/serve.py does, docs/deployment.md says how elsewhere). Without it each process counts
for itself, right only with one process.

What is counted where:
- every request, by interface, route name and status, with its duration: config/front.py
  (around everything, the redirect shortcut included), the route named by RouteMiddleware;
- short links: redirects (shortener/fastpath), visits buffered, flushed (written) and lost
  (shortener/fastpath/visits.py);
- analyses: durations and failures by cause, site-audit pages (reports/tasks.py), in the worker;
- read at scrape time (StateCollector): the analysis queue's depth and oldest age, audits
  under way, and whether the database and Redis answer.
"""

import hmac
import os
import re
import socket
import time
from collections.abc import Callable, Iterator

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest, values
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import REGISTRY, Collector

# Processes of several containers (compose's web and worker) may share one directory, and each
# container numbers its processes from 1: a process's files are named by host name and pid, not
# by pid alone, or two processes would count into one file. Set before any metric below is made.
if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    _HOST = socket.gethostname().replace("_", "-") or "host"
    values.ValueClass = values.MultiProcessValue(process_identifier=lambda: f"{_HOST}-{os.getpid()}")

PREFIX = "webtools"
# Request durations: the redirect answers in well under a millisecond, an API create may wait 8 s.
REQUEST_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
ANALYSIS_BUCKETS = (0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120)

REQUESTS = Counter(
    f"{PREFIX}_http_requests",
    "HTTP requests answered, by interface, route name and status.",
    ["interface", "route", "status"],
)
REQUEST_SECONDS = Histogram(
    f"{PREFIX}_http_request_duration_seconds",
    "Time from the request's arrival to its answer sent, by interface and route name.",
    ["interface", "route"],
    buckets=REQUEST_BUCKETS,
)
REDIRECTS = Counter(
    f"{PREFIX}_shortener_redirects", "Short link redirects, by outcome (followed or refused).", ["outcome"]
)
# The two children's inc, looked up once: labels() costs as much as the increment itself.
REDIRECTED = REDIRECTS.labels("followed").inc
REFUSED = REDIRECTS.labels("refused").inc
VISITS_BUFFERED = Counter(f"{PREFIX}_shortener_visits_buffered", "New visitors' visits put in a process's buffer.")
VISITS_FLUSHED = Counter(f"{PREFIX}_shortener_visits_flushed", "Buffered visits written to the database.")
VISITS_LOST = Counter(f"{PREFIX}_shortener_visits_lost", "Buffered visits that could not be written at exit.")
ANALYSIS_SECONDS = Histogram(
    f"{PREFIX}_analysis_duration_seconds",
    "Duration of analyses run by the worker, by outcome (done or failed) and kind (report or audit page).",
    ["outcome", "kind"],
    buckets=ANALYSIS_BUCKETS,
)
ANALYSIS_FAILURES = Counter(f"{PREFIX}_analysis_failures", "Analyses that failed, by cause.", ["cause"])
AUDIT_PAGES = Counter(f"{PREFIX}_audit_pages", "Site-audit pages analysed, by outcome (done or failed).", ["outcome"])

# The analysis engine's messages (reports/analysis) → a cause with few values, for a label.
FAILURE_CAUSES = (
    ("http_status", re.compile(r"answered with HTTP status")),
    ("private_address", re.compile(r"is private")),
    ("dns", re.compile(r"Could not resolve")),
    ("tls", re.compile(r"TLS")),
    ("redirects", re.compile(r"redirected")),
    ("not_html", re.compile(r"not point to an HTML page")),
    ("encoding", re.compile(r"compress")),
    ("timeout", re.compile(r"timed? ?out|took longer", re.IGNORECASE)),
    ("bad_url", re.compile(r"valid URL|http and https|no host name|port number")),
)


def enabled() -> bool:
    return bool(settings.METRICS_TOKEN)


def failure_cause(message: str) -> str:
    return next((cause for cause, pattern in FAILURE_CAUSES if pattern.search(message)), "other")


# (interface, route, status) → the two labelled children a request adds to: labels() looks its
# arguments up anew each time, and this runs on every request, the redirect shortcut's included.
_children: dict[tuple[str, str, int], tuple[Callable[[], None], Callable[[float], None]]] = {}


def observe_request(interface: str, route: str, status: int, seconds: float) -> None:
    key = (interface, route, status)
    children = _children.get(key)
    if children is None:
        children = _children[key] = (
            REQUESTS.labels(interface, route, str(status)).inc,
            REQUEST_SECONDS.labels(interface, route).observe,
        )
    children[0]()
    children[1](seconds)


# --- Which interface and route a request was -------------------------------

ROUTE_KEY = "webtools.route"  # the WSGI environ's key RouteMiddleware fills (request.META is the environ)
# The path as the access log writes it, when parts of it are secrets: the keys of password-reset,
# address-confirmation and invitation links, an import's status key.
LOG_PATH_KEY = "webtools.log_path"
SECRET_PATH_PARTS = ("key", "token", "uidb36", "uidb64")
INTERFACES = {
    "reports": "reports",
    "pastes": "pastes",
    "shortener": "shortener",
    "accounts": "accounts",
    "allauth": "accounts",
}


def interface_of_path(path: str) -> str:
    """The interface of a request Django did not route (unknown paths, bodies refused in front)."""
    if path.startswith("/api/"):
        return "reports"
    for prefix, interface in ((settings.PASTES_PREFIX, "pastes"), (settings.SHORTENER_PREFIX, "shortener")):
        if prefix and (path == f"/{prefix}" or path.startswith(f"/{prefix}/")):
            return interface
    if path.startswith("/accounts/"):
        return "accounts"
    return "other"


def route_of(environ: dict) -> tuple[str, str]:
    """(interface, route name) of an answered request: what RouteMiddleware noted, else from its path."""
    route = environ.get(ROUTE_KEY)
    if route is not None:
        return route
    return interface_of_path(environ.get("PATH_INFO", "")), "unrouted"


class RouteMiddleware:
    """Note the route (URL pattern name) and interface (the view's app) of each request for the counters.

    Route names, not paths: a path holds codes and ids, which would make a series per link.
    """

    def __init__(self, get_response: Callable) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        match = request.resolver_match
        if match is not None:
            module = getattr(match.func, "__module__", "") or ""
            interface = INTERFACES.get(module.split(".", 1)[0], "other")
            request.META[ROUTE_KEY] = (interface, match.view_name or match.route or "unnamed")
            secrets = [str(match.kwargs[name]) for name in SECRET_PATH_PARTS if match.kwargs.get(name)]
            if secrets:
                path = request.META.get("PATH_INFO", "")
                for secret in secrets:
                    path = path.replace(secret, "[redacted]")
                request.META[LOG_PATH_KEY] = path
        return response


# --- What is read at scrape time ---------------------------------------------


class StateCollector(Collector):
    """Gauges read when scraped: queue depth and age, audits under way, database and Redis health."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        from django.core.cache import cache
        from django.db import DatabaseError, connection
        from django.db.models import Count, Min
        from django.utils import timezone

        from reports.models import Audit, AuditStatus, Report

        started = time.perf_counter()
        database_up = 1
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
        except DatabaseError:
            database_up = 0
        database_seconds = time.perf_counter() - started
        yield GaugeMetricFamily(f"{PREFIX}_database_up", "Whether the database answered a SELECT 1.", value=database_up)
        yield GaugeMetricFamily(
            f"{PREFIX}_database_ping_seconds",
            "How long the database took to answer a SELECT 1.",
            value=database_seconds,
        )
        redis_up = GaugeMetricFamily(f"{PREFIX}_redis_up", "Whether Redis answered (absent without REDIS_URL).")
        if hasattr(cache, "ping"):
            redis_up.add_metric([], 1 if cache.ping() else 0)
        yield redis_up
        if not database_up:
            return
        try:
            queued = Report.objects.filter(status=Report.Status.QUEUED).aggregate(
                n=Count("pk"), oldest=Min("updated_at")
            )
            running = Report.objects.filter(status=Report.Status.RUNNING).count()
            audits = dict(
                Audit.objects.filter(status__in=[AuditStatus.QUEUED, AuditStatus.RUNNING])
                .values_list("status")
                .annotate(n=Count("pk"))
            )
        except DatabaseError:
            return
        yield GaugeMetricFamily(f"{PREFIX}_analysis_queue_depth", "Analyses queued.", value=queued["n"])
        age = (timezone.now() - queued["oldest"]).total_seconds() if queued["oldest"] else 0
        yield GaugeMetricFamily(
            f"{PREFIX}_analysis_queue_oldest_age_seconds", "Age of the oldest queued analysis (0: none).", value=age
        )
        yield GaugeMetricFamily(f"{PREFIX}_analysis_running", "Analyses running.", value=running)
        under_way = GaugeMetricFamily(
            f"{PREFIX}_audits", "Site audits queued or running, by status.", labels=["status"]
        )
        for status in (AuditStatus.QUEUED, AuditStatus.RUNNING):
            under_way.add_metric([status], audits.get(status, 0))
        yield under_way


def scrape() -> bytes:
    """Every process's counters (PROMETHEUS_MULTIPROC_DIR) or this one's, and the state read now."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
    else:
        registry = CollectorRegistry()
        registry.register(_ThisProcess())
    registry.register(StateCollector())
    return generate_latest(registry)


class _ThisProcess(Collector):
    def collect(self) -> Iterator:
        yield from REGISTRY.collect()


def view(request: HttpRequest) -> HttpResponse:
    """GET /metrics: 404 while METRICS_TOKEN is unset, 401 without its bearer token."""
    token = settings.METRICS_TOKEN
    if not token:
        from django.http import Http404

        raise Http404
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
        return HttpResponse(
            "A bearer token (METRICS_TOKEN) is required.\n",
            status=401,
            content_type="text/plain; charset=utf-8",
            headers={"WWW-Authenticate": 'Bearer realm="metrics"'},
        )
    return HttpResponse(scrape(), content_type="text/plain; version=0.0.4; charset=utf-8")
