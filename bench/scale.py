"""Every endpoint and page at life size: p50/p99 of one client at a small and a large database.

    make bench-scale                                  # PostgreSQL 10³ and 10⁶, SQLite 10³ and 10⁵
    make bench-scale BENCH_ARGS="--sizes pg:1000,pg:100000 --json out.json"

For each size it recreates a database, migrates, seeds it in SQL (bench/scale_seed.py: links,
about ten visits per link, reports over projects, queued analyses, pastes) and serves it as
`make run` does (granian, production settings, bench/harness.py). Then, one request at a
time with httpx, each endpoint is asked a few times to warm up and then up to --requests
times (fewer once --budget seconds have passed): p50 and p99, the response's bytes, and the
granian workers' peak resident memory while it ran (VmHWM, reset before each endpoint).

The table compares each backend's smallest and largest size with issue 19's targets: on
PostgreSQL the large p50 within 2x of the small one and under 50 ms, on SQLite under 200 ms;
the export at ≥ 50,000 links/s with the workers' peak memory growing by < 50 MB; a response
that grows with the data (more than 2x the bytes) is not paged.
"""

import argparse
import contextlib
import json
import math
import os
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx

from bench.harness import PROJECT_DIR, database_exists, manage, recreate_database, server
from bench.run import service_env
from common.paging import LARGE_TABLE_PER_PAGE

DEFAULT_SIZES = "pg:1000,pg:1000000,sqlite:1000,sqlite:100000"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/bench_scale"
PG_P50_LIMIT_MS = 50
SQLITE_P50_LIMIT_MS = 200
RATIO_LIMIT = 2.0
# A p50 a millisecond or two above twice a 1 ms one is the shared machine's noise, not growth.
RATIO_SLACK_MS = 2.0
EXPORT_LINKS_PER_SECOND = 50_000
EXPORT_RSS_GROWTH_MB = 50
# A last page holds fewer rows than a first: bytes past 4 times (and 4 KB) are growth with the data.
BYTES_GROWTH_LIMIT = 4.0
OWN_PAGE_SIZE = 100  # C's page of a user's own links (shortener/README.md); main lists them whole
ACCOUNT_PER_PAGE = 50  # B's default page of an account's pastes (pastes/README.md)
ADMIN_PASSWORD = "scale-bench-admin-password"
# Migrations that fill a table from the seeded ones (the per-day visit counts from the visits):
# the seed runs before them and they run after it, so their own backfill fills those tables,
# as on an instance upgraded with its data. Those not in this checkout are skipped.
BACKFILLING_MIGRATIONS = [("shortener", "0006_daily_visits_live_link_count")]
TIMEOUT_STATUS = 599  # no answer within --timeout


@dataclass
class Endpoint:
    name: str
    path: str
    auth: str = ""  # "", "session", "admin", "reports", "pastes", "shortener"
    accept: str = ""
    method: str = "GET"
    body: str | None = None
    export: bool = False  # what it returns grows with the data by design


@dataclass
class Measure:
    p50_ms: float
    p99_ms: float
    samples: int
    bytes: int
    status: int
    rss_peak_mb: float
    rss_growth_mb: float


@dataclass
class Row:
    endpoint: str
    backend: str
    small_size: int | None
    large_size: int
    small: Measure | None
    large: Measure
    ratio: float | None
    links_per_second: float | None = None
    verdict: list[str] = field(default_factory=list)


def last_page(count: int, per_page: int) -> int:
    return max(1, math.ceil(count / per_page))


def endpoints(data: dict) -> list[Endpoint]:
    s, p = data["shortener_path"], data["pastes_path"]
    code, report = data["code"], data["report_id"]
    html = "text/html"
    paste_body = json.dumps({"name": "scale paste", "content": "print('hello')\n" * 20, "exposure": "unlisted"})
    link_body = json.dumps({"lsturl": "https://example.org/new-{n}"})
    return [
        # C: short links.
        Endpoint("C redirect GET /<code>", f"{s}{code}"),
        Endpoint("C resolve /<code>?_format=json", f"{s}{code}?_format=json"),
        Endpoint("C GET /stats/<code> (JSON)", f"{s}stats/{code}?_format=json"),
        Endpoint("C stats page /stats/<code> (chart)", f"{s}stats/{code}", accept=html),
        Endpoint("C GET /fullstats", f"{s}fullstats"),
        Endpoint("C POST /a (token)", f"{s}a", auth="shortener", method="POST", body=link_body),
        Endpoint("C admin /stats page 1 (site chart)", f"{s}stats?page=1", auth="admin", accept=html),
        Endpoint(
            "C admin /stats last page",
            f"{s}stats?page={last_page(data['links'], 10)}",
            auth="admin",
            accept=html,
        ),
        Endpoint("C admin /stats.json page 1", f"{s}stats.json?page=1", auth="admin"),
        Endpoint("C admin /stats.json last page", f"{s}stats.json?page={last_page(data['links'], 10)}", auth="admin"),
        Endpoint(
            "C admin /stats.json middle page",
            f"{s}stats.json?page={(last_page(data['links'], 10) + 1) // 2}",
            auth="admin",
        ),
        Endpoint("C own /stats", f"{s}stats", auth="session", accept=html),
        Endpoint("C own /stats.json", f"{s}stats.json", auth="session"),
        Endpoint(
            "C own /stats.json last page",
            f"{s}stats.json?page={last_page(data['own_links'], OWN_PAGE_SIZE)}",
            auth="session",
        ),
        Endpoint(
            "C own /stats.json middle page",
            f"{s}stats.json?page={(last_page(data['own_links'], OWN_PAGE_SIZE) + 1) // 2}",
            auth="session",
        ),
        Endpoint("C GET /export (JSON)", f"{s}export.json", auth="session", export=True),
        Endpoint("C GET /export.csv", f"{s}export.csv", auth="session", export=True),
        # A: reports.
        Endpoint("A GET /api/v1/reports", "/api/v1/reports?per_page=25", auth="reports"),
        Endpoint(
            "A /api/v1/reports last page",
            f"/api/v1/reports?per_page=25&page={last_page(data['own_reports'], 25)}",
            auth="reports",
        ),
        Endpoint("A /api/v1/reports?search=abc", "/api/v1/reports?per_page=25&search=abc", auth="reports"),
        Endpoint("A /api/v1/reports?sort_by=url", "/api/v1/reports?per_page=25&sort_by=url&sort=asc", auth="reports"),
        Endpoint(
            "A /api/v1/reports?sort_by=generated_at",
            "/api/v1/reports?per_page=25&sort_by=generated_at&sort=desc",
            auth="reports",
        ),
        Endpoint("A GET /api/v1/reports/<id>", f"/api/v1/reports/{report}", auth="reports"),
        Endpoint("A GET /api/v1/projects", "/api/v1/projects", auth="reports"),
        Endpoint(
            "A /api/v1/projects last page",
            f"/api/v1/projects?page={last_page(data['own_projects'], 10)}",
            auth="reports",
        ),
        Endpoint("A report list page /reports/", "/reports/", auth="session", accept=html),
        Endpoint(
            "A report list page, last",
            f"/reports/?page={last_page(data['own_reports'], 10)}",
            auth="session",
            accept=html,
        ),
        Endpoint("A project list + charts /reports/projects", "/reports/projects", auth="session", accept=html),
        Endpoint(
            "A project list + charts, last page",
            f"/reports/projects?page={last_page(data['own_projects'], 10)}",
            auth="session",
            accept=html,
        ),
        Endpoint("A report page /reports/<id>", f"/reports/{report}", auth="session", accept=html),
        Endpoint("A report download /reports/<id>.json", f"/reports/{report}.json", auth="session"),
        # B: pastes.
        Endpoint("B GET /paste/@id", f"{p}paste/@{data['paste_id']}"),
        Endpoint("B GET /paste/@id/raw", f"{p}paste/@{data['paste_id']}/raw"),
        Endpoint("B paste page /<id>", f"{p}{data['paste_id']}", accept=html),
        Endpoint("B GET /accounts/@user", f"{p}accounts/@{data['owner']}"),
        Endpoint(
            "B /accounts/@user last page",
            f"{p}accounts/@{data['owner']}?page={last_page(data['owned_pastes'], ACCOUNT_PER_PAGE)}",
        ),
        Endpoint("B POST /create", f"{p}create", auth="pastes", method="POST", body=paste_body),
        # The Django admin's list pages of the big models.
        *(
            Endpoint(f"admin {model} list", f"/admin/{model}/", auth="admin", accept=html)
            for model in (
                "shortener/shortlink",
                "reports/report",
                "reports/project",
                "pastes/paste",
                "django_tasks_database/dbtaskresult",
            )
        ),
        Endpoint(
            "admin shortener/shortlink last page",
            f"/admin/shortener/shortlink/?p={last_page(data['links'], LARGE_TABLE_PER_PAGE)}",
            auth="admin",
            accept=html,
        ),
        Endpoint(
            "admin shortener/shortlink middle page",
            f"/admin/shortener/shortlink/?p={last_page(data['links'], LARGE_TABLE_PER_PAGE) // 2}",
            auth="admin",
            accept=html,
        ),
    ]


def granian_workers(port: int) -> list[int]:
    """The pids of the granian processes serving `port`: the main one and its descendants."""
    parents: dict[int, int] = {}
    roots = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
        if any(part.endswith(b"granian") for part in cmdline[:2]) and str(port).encode() in cmdline:
            roots.append(int(entry.name))
    found = set(roots)
    changed = True
    while changed:
        changed = False
        for pid, parent in parents.items():
            if parent in found and pid not in found:
                found.add(pid)
                changed = True
    return sorted(found)


def _status_kb(pid: int, key: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def reset_peaks(pids: list[int]) -> dict[int, int]:
    """Reset each process's VmHWM to its current RSS (Linux ≥ 4.0), and return those RSS in kB."""
    for pid in pids:
        with contextlib.suppress(OSError):
            Path(f"/proc/{pid}/clear_refs").write_text("5")
    return {pid: _status_kb(pid, "VmRSS") for pid in pids}


def request_parts(endpoint: Endpoint, data: dict) -> tuple[dict[str, str], dict[str, str]]:
    """The headers and cookies that authenticate `endpoint` as the seeded owner."""
    headers = {"Accept": endpoint.accept or "application/json"}
    cookies = {}
    if endpoint.auth in ("session", "admin"):
        cookies["sessionid"] = data["admin_session" if endpoint.auth == "admin" else "session"]
    elif endpoint.auth == "reports":
        headers["Authorization"] = f"Bearer {data['reports_key']}"
    elif endpoint.auth == "pastes":
        headers["Authorization"] = data["pastes_key"]
    elif endpoint.auth == "shortener":
        headers["Authorization"] = f"Bearer {data['shortener_key']}"
    if endpoint.body is not None:
        headers["Content-Type"] = "application/json"
    return headers, cookies


def explain_misses(backend: str, env: dict[str, str], data: dict, results: dict[str, "Measure"]) -> dict[str, dict]:
    """The slowest query and its plan of each endpoint over the p50 limit or answering an error."""
    limit = PG_P50_LIMIT_MS if backend == "pg" else SQLITE_P50_LIMIT_MS
    missed = []
    for endpoint in endpoints(data):
        result = results.get(endpoint.name)
        if result is None or (result.p50_ms < limit and result.status < 400):
            continue
        headers, cookies = request_parts(endpoint, data)
        body = endpoint.body.replace("{n}", f"explain-{time.time_ns()}") if endpoint.body else None
        missed.append(
            {
                "name": endpoint.name,
                "path": endpoint.path,
                "method": endpoint.method,
                "headers": headers,
                "cookies": cookies,
                "body": body,
            }
        )
    if not missed:
        return {}
    request = json.dumps({"endpoints": missed, "host": "127.0.0.1"})
    output = manage(env, "shell", "-c", f"from bench.scale_explain import explain; explain({request!r})")
    found = json.loads(output.strip().splitlines()[-1])
    for name, why in found.items():
        print(f"  EXPLAIN {name}: {why.get('queries', 0)} queries, slowest {why.get('query_ms', '-')} ms", flush=True)
        for line in why.get("plan", [])[:6]:
            print(f"      {line}", flush=True)
    return found


def measure(
    client: httpx.Client, base: str, endpoint: Endpoint, data: dict, pids: list[int], args: argparse.Namespace
) -> Measure:
    headers, cookies = request_parts(endpoint, data)
    client.cookies.clear()
    for name, value in cookies.items():
        client.cookies.set(name, value)

    before = reset_peaks(pids)
    times: list[float] = []
    size = status = 0
    started = time.monotonic()
    slow = False  # a request took half the budget: a sample or two must do
    attempt = 0
    while len(times) < args.requests:
        attempt += 1
        body = endpoint.body.replace("{n}", f"{time.time_ns()}-{attempt}") if endpoint.body else None
        t0 = time.perf_counter()
        try:
            response = client.request(endpoint.method, base + endpoint.path, headers=headers, content=body)
            size, status = len(response.content), response.status_code
        except httpx.TimeoutException:
            size, status = 0, TIMEOUT_STATUS
        elapsed = (time.perf_counter() - t0) * 1000
        if attempt > args.warmup or slow:
            times.append(elapsed)
        slow = slow or elapsed > args.budget * 500 or status == TIMEOUT_STATUS
        spent = time.monotonic() - started
        if spent > args.budget and (len(times) >= args.min_requests or (slow and times)):
            break
    peak = max((_status_kb(pid, "VmHWM") for pid in pids), default=0)
    growth = max((_status_kb(pid, "VmHWM") - rss for pid, rss in before.items()), default=0)
    times.sort()
    return Measure(
        p50_ms=round(statistics.median(times), 2),
        p99_ms=round(times[min(len(times) - 1, math.ceil(0.99 * len(times)) - 1)], 2),
        samples=len(times),
        bytes=size,
        status=status,
        rss_peak_mb=round(peak / 1024, 1),
        rss_growth_mb=round(growth / 1024, 1),
    )


def database_url(backend: str, size: int, args: argparse.Namespace) -> str:
    if backend == "pg":
        # A kept database is one per size, so that measuring another size leaves it alone.
        return f"{args.database_url}_{size}" if args.reuse else args.database_url
    return f"sqlite:///{args.sqlite_dir / f'i19_scale_{size}.sqlite3'}"


def seed_record(url: str, size: int) -> Path:
    """Where --reuse finds what the seed of `url` at `size` returned (its keys, sessions and ids)."""
    name = url.rpartition("/")[2].replace(".", "_")
    return Path(tempfile.gettempdir()) / f"bench_scale_{name}_{size}.json"


def prepare(backend: str, size: int, env: dict[str, str], args: argparse.Namespace) -> dict:
    url = env["DATABASE_URL"]
    record = seed_record(url, size)
    if args.reuse and record.exists() and database_exists(url):
        # Seeding 10⁶ rows with 10⁷ visits takes many minutes; a kept database only migrates,
        # as an instance with data upgrades.
        print(f"  reusing the database seeded before ({record})", flush=True)
        manage(env, "migrate", "--noinput", "-v0")
        data = json.loads(record.read_text())
        output = manage(env, "shell", "-c", "from bench.scale_seed import sessions; sessions()")
        return {**data, **json.loads(output.strip().splitlines()[-1])}
    record.unlink(missing_ok=True)
    if backend == "pg":
        recreate_database(url)
    else:
        path = Path(url.removeprefix("sqlite:///"))
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    manage(env, "migrate", "--noinput", "-v0")
    backfills = [
        (app, name)
        for app, name in BACKFILLING_MIGRATIONS
        if (PROJECT_DIR / app / "migrations" / f"{name}.py").exists()
    ]
    for app, name in backfills:
        manage(env, "migrate", app, f"{int(name[:4]) - 1:04d}", "--noinput", "-v0")
    started = time.monotonic()
    output = manage(env, "shell", "-c", f"from bench.scale_seed import seed; seed({int(size)})")
    data = json.loads(output.strip().splitlines()[-1])
    data["seed_seconds"] = round(time.monotonic() - started, 1)
    print(f"  seeded in {data['seed_seconds']} s ({data['timings']}), {data['visits']:,} visits", flush=True)
    if backfills:
        started = time.monotonic()
        manage(env, "migrate", "--noinput", "-v0")
        data["backfill_seconds"] = round(time.monotonic() - started, 1)
        print(f"  {', '.join(name for _, name in backfills)} (backfill) in {data['backfill_seconds']} s", flush=True)
    output = manage(env, "shell", "-c", "from bench.scale_seed import keys; keys()")
    data |= json.loads(output.strip().splitlines()[-1])
    data["rows"] = json.loads(
        manage(env, "shell", "-c", "from bench.scale_seed import row_counts; row_counts()").strip().splitlines()[-1]
    )
    print(f"  rows: {data['rows']}", flush=True)
    record.write_text(json.dumps(data))
    return data


def run_size(
    backend: str, size: int, args: argparse.Namespace, *, explain: bool = False
) -> tuple[dict, dict[str, Measure]]:
    env = service_env(database_url(backend, size, args))
    env["SHORTENER_ADMINPWD"] = ADMIN_PASSWORD  # admin mode needs one; the seeded session is in it already
    env["SHORTENER_TOKEN_RATE_LIMIT"] = "1000000000"
    print(f"{backend} at {size:,} rows: seeding {env['DATABASE_URL']} …", flush=True)
    data = prepare(backend, size, env, args)
    results: dict[str, Measure] = {}
    wanted = [e for e in endpoints(data) if not args.only or any(o.lower() in e.name.lower() for o in args.only)]
    while wanted:
        # A request the client gave up on keeps its server thread busy: the next endpoints get a
        # fresh server, so that they are not measured beside it.
        wanted = measure_until_timeout(wanted, env, data, results, args)
    if explain:
        data["explain"] = explain_misses(backend, env, data, results)
    return data, results


def measure_until_timeout(
    wanted: list[Endpoint], env: dict[str, str], data: dict, results: dict[str, Measure], args: argparse.Namespace
) -> list[Endpoint]:
    """Measure `wanted` in order on one server; return those left when one timed out."""
    with server(
        "config.asgi:application",  # as make run serves it
        port=args.port,
        workers=args.workers,
        threads=args.threads,
        env=env,
        ready_path="/healthz",
        interface="asgi",
        # Starting two workers that import Django took over 30 s on the busy shared machine.
        ready_timeout=300,
    ) as base:
        pids = granian_workers(args.port)
        with httpx.Client(timeout=args.timeout, follow_redirects=False) as client:
            for index, endpoint in enumerate(wanted):
                try:
                    result = measure(client, base, endpoint, data, pids, args)
                except httpx.HTTPError as error:
                    print(f"  {endpoint.name}: {type(error).__name__} {error}", flush=True)
                    continue
                results[endpoint.name] = result
                flag = "" if result.status < 400 else f"  STATUS {result.status}"
                print(
                    f"  {endpoint.name:<45} p50 {result.p50_ms:>9.2f} p99 {result.p99_ms:>9.2f} ms "
                    f"{result.bytes:>10,} B  peak {result.rss_peak_mb:>7.1f} MB{flag}",
                    flush=True,
                )
                if result.status == TIMEOUT_STATUS:
                    return wanted[index + 1 :]
    return []


def verdict(row: Row, backend: str, export: bool, links: int) -> list[str]:
    large, small = row.large, row.small
    parts = []
    if large.status >= 400 or (small and small.status >= 400):
        parts.append("TIMEOUT" if TIMEOUT_STATUS in (large.status, small and small.status) else f"HTTP {large.status}")
    if export:
        # An export carries every link: its targets are its rate and its memory, not a latency.
        ok = (row.links_per_second or 0) >= EXPORT_LINKS_PER_SECOND
        parts.append(f"≥50k links/s {'met' if ok else 'MISSED'}")
        ok = large.rss_growth_mb < EXPORT_RSS_GROWTH_MB
        parts.append(f"RSS +<50MB {'met' if ok else 'MISSED'}")
        return parts
    if backend == "pg":
        parts.append(f"p50<{PG_P50_LIMIT_MS}ms {'met' if large.p50_ms < PG_P50_LIMIT_MS else 'MISSED'}")
        if small is not None:
            ok = large.p50_ms <= RATIO_LIMIT * small.p50_ms + RATIO_SLACK_MS
            parts.append(f"≤2x {'met' if ok else 'MISSED'}")
    else:
        parts.append(f"p50<{SQLITE_P50_LIMIT_MS}ms {'met' if large.p50_ms < SQLITE_P50_LIMIT_MS else 'MISSED'}")
    if small is not None and small.bytes and large.bytes > BYTES_GROWTH_LIMIT * small.bytes + 4096:
        parts.append("paged MISSED")
    return parts


def build_rows(measured: dict[tuple[str, int], tuple[dict, dict[str, Measure]]]) -> list[Row]:
    rows = []
    for backend in dict.fromkeys(b for b, _ in measured):
        sizes = sorted(size for b, size in measured if b == backend)
        large_size = sizes[-1]
        small_size = sizes[0] if len(sizes) > 1 else None
        large_data, large_results = measured[(backend, large_size)]
        small_results = measured[(backend, small_size)][1] if small_size else {}
        exports = {e.name for e in endpoints(large_data) if e.export}
        for name, large in large_results.items():
            small = small_results.get(name)
            row = Row(
                endpoint=name,
                backend=backend,
                small_size=small_size,
                large_size=large_size,
                small=small,
                large=large,
                ratio=round(large.p50_ms / small.p50_ms, 2) if small and small.p50_ms else None,
            )
            if name in exports:
                row.links_per_second = round(large_data["own_links"] / (large.p50_ms / 1000))
            row.verdict = verdict(row, backend, name in exports, large_data["own_links"])
            rows.append(row)
    return rows


def print_table(rows: list[Row], args: argparse.Namespace, seeds: dict) -> None:
    print()
    print(
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, granian "
        f"{args.workers} workers x {args.threads} threads, one client, up to {args.requests} requests "
        f"(after {args.warmup}) or {args.budget:g} s per endpoint"
    )
    for (backend, size), seconds in seeds.items():
        print(f"seeded {backend} at {size:,} in {seconds} s")
    backend = None
    for row in rows:
        if row.backend != backend:
            backend = row.backend
            small = f"{row.small_size:,}" if row.small_size else "-"
            print()
            header = (
                f"{'endpoint (' + backend + ')':<45} {'p50/p99 ms @' + small:>20} "
                f"{'p50/p99 ms @' + format(row.large_size, ','):>22} {'ratio':>6} {'bytes':>11} "
                f"{'peak RSS':>9}  target"
            )
            print(header)
            print("-" * len(header))
        small = f"{row.small.p50_ms:.1f}/{row.small.p99_ms:.1f}" if row.small else "-"
        large = f"{row.large.p50_ms:.1f}/{row.large.p99_ms:.1f}"
        ratio = f"{row.ratio:.1f}x" if row.ratio is not None else "-"
        rss = f"{row.large.rss_peak_mb:.0f} MB"
        extra = (
            f" ({row.links_per_second:,} links/s, +{row.large.rss_growth_mb:.0f} MB)" if row.links_per_second else ""
        )
        print(
            f"{row.endpoint:<45} {small:>20} {large:>22} {ratio:>6} {row.large.bytes:>11,} {rss:>9}  "
            f"{', '.join(row.verdict)}{extra}"
        )


def parse_sizes(text: str) -> list[tuple[str, int]]:
    sizes = []
    for item in text.split(","):
        backend, _, size = item.strip().partition(":")
        if backend not in ("pg", "sqlite") or not size:
            raise argparse.ArgumentTypeError(f"{item!r}: expected pg:<rows> or sqlite:<rows>")
        sizes.append((backend, int(float(size))))
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--sizes", type=parse_sizes, default=parse_sizes(DEFAULT_SIZES), help=f"default {DEFAULT_SIZES}"
    )
    parser.add_argument("--requests", type=int, default=30, help="measured requests per endpoint (default 30)")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--min-requests", type=int, default=5, help="at least this many, even past the budget")
    parser.add_argument(
        "--budget", type=float, default=10, help="seconds per endpoint before stopping early (default 10)"
    )
    parser.add_argument("--timeout", type=float, default=120, help="seconds one request may take (then: 599)")
    parser.add_argument(
        "--only",
        type=lambda text: [part for part in text.split(",") if part],
        help="measure only the endpoints whose name contains one of these texts (comma-separated)",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--port", type=int, default=int(os.environ.get("BENCH_SCALE_PORT", 8811)))
    parser.add_argument(
        "--database-url",
        default=os.environ.get("BENCH_SCALE_DATABASE_URL", DEFAULT_DATABASE_URL),
        help="a PostgreSQL database the benchmark may drop and recreate",
    )
    parser.add_argument(
        "--sqlite-dir", type=Path, default=Path(tempfile.gettempdir()), help="where the SQLite files go"
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep a database seeded by an earlier run at the same size (migrated, not reseeded)",
    )
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    parser.add_argument(
        "--explain",
        action="store_true",
        help="at each backend's largest size, show the slowest query's plan of every endpoint over its p50 limit",
    )
    parser.add_argument(
        "--no-collectstatic", action="store_true", help="use the static files collected before (the pages need them)"
    )
    args = parser.parse_args(argv)

    collected = args.no_collectstatic
    measured: dict[tuple[str, int], tuple[dict, dict[str, Measure]]] = {}
    seeds: dict[tuple[str, int], float] = {}
    for backend, size in args.sizes:
        if not collected:
            manage(service_env(database_url(backend, size, args)), "collectstatic", "--noinput", "-v0")
            collected = True
        largest = size == max(s for b, s in args.sizes if b == backend)
        data, results = run_size(backend, size, args, explain=args.explain and largest)
        measured[(backend, size)] = (data, results)
        seeds[(backend, size)] = data["seed_seconds"]
    rows = build_rows(measured)
    print_table(rows, args, seeds)
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "cores": os.cpu_count(),
                    "seed_seconds": {f"{b}:{s}": sec for (b, s), sec in seeds.items()},
                    "rows": [asdict(row) for row in rows],
                    "explain": {f"{b}:{s}": d.get("explain", {}) for (b, s), (d, _) in measured.items()},
                    "tables": {f"{b}:{s}": d.get("rows", {}) for (b, s), (d, _) in measured.items()},
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    os.chdir(PROJECT_DIR)
    sys.exit(main())
