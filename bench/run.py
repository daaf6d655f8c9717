"""HTTP benchmarks of every hot path, each also given as a ratio to a bare WSGI floor and to its own.

    make bench                      # or: .venv/bin/python -m bench.run [--duration 10] [--json out.json]

Starts the service with its production server and settings on a fresh PostgreSQL database
(or SQLite, as make run serves, with --database-url sqlite:////path; Redis too when REDIS_URL
is set), seeds it, starts the floor app with the same server and
worker count, drives each scenario with wrk over loopback and prints a table. The scenarios of
issue 51 also have a semantic floor (bench/semantic_floor.py: the endpoint's own SQL and JSON
in a bare app), measured right after the scenario. After the redirect scenario it checks that
the visit counters equal the unique visits wrk made.
"""

import argparse
import json
import os
import secrets
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from bench import analysis_load, semantic_floor, slow_clients
from bench.harness import PROJECT_DIR, WrkResult, connect, manage, recreate_database, run_wrk, server

SERVICE_PORT = 8801  # the floor app listens on the next port, the slow page of "under analysis load" on the one after
ANALYSIS_LOAD = "under analysis load"
SLOW_CLIENTS = "beside slow clients"
VISITORS = 50  # distinct User-Agents the redirect scenarios visit as
# The scenarios that visit short links as many visitors (visits.lua), and the seed's codes they visit.
VISITED_CODES = {
    "redirect_paths": "codes",
    "limited_redirect_paths": "limited_codes",
    "ruled_redirect_paths": "ruled_codes",
}
PLAIN_REDIRECT = "C redirect GET /<code>"
# Issue 51: every endpoint with a semantic floor at least at half of its floor's req/s.
SEMANTIC_TARGET = 0.50
SEMANTIC_SAMPLE = 4  # paths of a scenario the floor records (evenly spread): it replays them in turn


@dataclass
class Row:
    scenario: str
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    errors: int
    ratio_to_floor: float | None
    target: str
    semantic_floor_rps: float | None = None  # its own floor's req/s, measured right after it
    ratio_to_semantic_floor: float | None = None


@dataclass
class Scenario:
    name: str
    path_key: str  # which list of paths from the seed data to draw from
    method: str = "GET"
    body: str | None = None
    headers: dict[str, str] | None = None
    target_ratio: float | None = None
    target_p99_ms: float | None = None
    # The least share of another scenario's req/s (its name, the share), e.g. a ruled link's of a plain one's.
    target_of: tuple[str, float] | None = None
    semantic_floor: bool = False  # measure its semantic floor too (target SEMANTIC_TARGET)


def service_env(database_url: str) -> dict[str, str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": database_url,
        "LOG_LEVEL": "WARNING",
        # Rate limits protect a real service from one client; here one client is the point.
        "REPORTS_RATE_LIMIT": "1000000000",
        "PASTES_WRITE_RATE_LIMIT": "1000000000",
        "PASTES_READ_RATE_LIMIT": "1000000000",
        "SHORTENER_CREATE_RATE_LIMIT": "1000000000",
        # "under analysis load" analyses a page on loopback, with the default task backend.
        "REPORTS_ALLOW_PRIVATE_NETWORKS": "1",
        "TASKS_BACKEND": "database",
    }
    env.setdefault("REDIS_URL", "")
    return env


def scenarios(data: dict) -> list[Scenario]:
    reports_auth = {"Authorization": f"Bearer {data['reports_key']}", "Accept": "application/json"}
    pastes_auth = {"Authorization": data["pastes_key"], "Content-Type": "application/json"}
    paste_body = json.dumps({"name": "bench paste", "content": "print('hello')\n" * 20, "exposure": "unlisted"})
    return [
        Scenario(PLAIN_REDIRECT, "redirect_paths", target_ratio=0.15, target_p99_ms=20),
        # Issue 46: links with three redirect rules, evaluated from the cached copy on every visit.
        Scenario("C redirect, link with 3 rules", "ruled_redirect_paths", target_of=(PLAIN_REDIRECT, 0.80)),
        # Each first visit is a database write during the request (issue 20), as a paste read is.
        Scenario(analysis_load.LIMITED_REDIRECT, "limited_redirect_paths"),
        Scenario("C JSON resolve", "resolve_paths"),
        Scenario("C GET /stats/<code>", "stats_paths", semantic_floor=True),
        Scenario("B GET /paste/@id", "paste_paths", target_ratio=0.10, semantic_floor=True),
        Scenario("B GET /paste/@id/raw", "raw_paths"),
        Scenario(
            "B POST /create",
            "create_paths",
            method="POST",
            body=paste_body,
            headers=pastes_auth,
            semantic_floor=True,
        ),
        Scenario(
            "A list reports (25)", "report_list_paths", headers=reports_auth, target_ratio=0.05, semantic_floor=True
        ),
        Scenario("A show report", "report_paths", headers=reports_auth, semantic_floor=True),
        Scenario("GET /healthz", "healthz_paths", semantic_floor=True),
    ]


def chosen(only: str | None, name: str) -> bool:
    """Whether --only picks `name`: no --only, or one of its |-separated texts is in the name."""
    return not only or any(part and part in name.lower() for part in only.lower().split("|"))


def floor_requests(scenario: Scenario, paths: list[str]) -> list[dict]:
    """What the scenario's semantic floor asks the endpoint once at its start: a few of its paths."""
    step = max(1, len(paths) // SEMANTIC_SAMPLE)
    return [
        {"method": scenario.method, "path": path, "headers": scenario.headers or {}, "body": scenario.body}
        for path in paths[::step][:SEMANTIC_SAMPLE]
    ]


def write_lines(directory: Path, name: str, lines: list[str]) -> str:
    path = directory / name
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def replay_visits(codes: list[str], thread_counts: list[tuple[int, int, int]]) -> tuple[int, int]:
    """Unique (code, visitor) pairs among the answered requests, and among all sent ones."""
    answered_pairs: set[tuple[str, int]] = set()
    sent_pairs: set[tuple[str, int]] = set()
    for thread_id, sent, answered in thread_counts:
        state = thread_id
        for index in range(sent):
            state = (state * 48271) % 2147483647
            code = codes[state % len(codes)]
            state = (state * 48271) % 2147483647
            pair = (code, state % VISITORS)
            sent_pairs.add(pair)
            if index < answered:
                answered_pairs.add(pair)
    return len(answered_pairs), len(sent_pairs)


# The redirect scenario's visits are in the workers' buffers until their flusher writes them;
# on a busy machine the last batch (tens of thousands of visits) can take seconds, so a check
# that waits for "no change for 2 s" may read before it (issue 19: 11,758 counted for ~40,450).
FLUSH_WAIT_SECONDS = 120.0
QUIET_SECONDS = 3.0


@dataclass
class Recorded:
    counted: int  # counters' sum, less what the seed put there
    visit_rows: int  # unique-visit rows
    daily: int  # sum of the per-link daily counts
    site_daily: int  # sum of the site-wide daily counts
    browsers: int  # sum of the per-link daily breakdown by browser, OS and device (as any dimension adds up)

    @property
    def consistent(self) -> bool:
        return self.counted == self.visit_rows == self.daily == self.site_daily == self.browsers


def recorded_visits(conn, counter_sum_sql: str) -> Recorded:  # a psycopg or sqlite3 connection
    # One statement, one snapshot: a flush commits counters, rows and daily counts together.
    row = conn.execute(
        f"SELECT ({counter_sum_sql}), (SELECT COUNT(*) FROM shortener_visit), "
        "(SELECT COALESCE(SUM(visits), 0) FROM shortener_dailyvisits), "
        "(SELECT COALESCE(SUM(visits), 0) FROM shortener_sitedailyvisits), "
        "(SELECT COALESCE(SUM(visits), 0) FROM shortener_visitbreakdown WHERE dimension IN ('agents', 'browsers'))"
    ).fetchone()
    return Recorded(*(int(value) for value in row))


def wait_for_flush(database_url: str, counter_sum_sql: str, *, at_least: int) -> tuple[Recorded, float]:
    """The visits recorded once every answered visit is (polling, bounded), and no flush is still coming.

    Waits until the counters reach `at_least` (the unique visits wrk got an answer for) and
    then until nothing changed for QUIET_SECONDS (visits sent but unanswered may still come),
    or FLUSH_WAIT_SECONDS in all. Returns what was recorded and how long the wait took.
    """
    started = time.monotonic()
    deadline = started + FLUSH_WAIT_SECONDS
    with connect(database_url) as conn:
        recorded = recorded_visits(conn, counter_sum_sql)
        changed_at = time.monotonic()
        while time.monotonic() < deadline:
            if recorded.counted >= at_least and time.monotonic() - changed_at >= QUIET_SECONDS:
                break
            time.sleep(0.2)
            latest = recorded_visits(conn, counter_sum_sql)
            if latest != recorded:
                recorded, changed_at = latest, time.monotonic()
    return recorded, time.monotonic() - started


def check_visit_counts(
    database_url: str, data: dict, codes: list[str], result: WrkResult, made_before: tuple[int, int]
) -> tuple[str, tuple[int, int]]:
    """A note on the counters after a visits.lua run over `codes`, and the unique visits made so far
    (`made_before`: those of the earlier redirect scenarios, over other codes)."""
    threads = [
        (int(t), int(sent), int(answered))
        for t, sent, answered, _ in (
            line.split()[1:] for line in result.output.splitlines() if line.startswith("visits-thread")
        )
    ]
    low, high = replay_visits(codes, threads)
    low, high = low + made_before[0], high + made_before[1]
    recorded, waited = wait_for_flush(database_url, data["counter_sum_sql"], at_least=low)
    # Every answered visit counted, none counted twice, and counters, rows and charts agree.
    verdict = "ok" if low <= recorded.counted <= high and recorded.consistent else "MISMATCH"
    return (
        f"visit counters: {recorded.counted} counted ({recorded.visit_rows} visit rows, daily counts "
        f"{recorded.daily} per link and {recorded.site_daily} site-wide, {recorded.browsers} in the "
        f"browser breakdown), {low} to {high} unique visits "
        f"made, flushed {waited:.1f} s after the run ({verdict})"
    ), (low, high)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=int, default=10, help="seconds per scenario (default 10)")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--threads", type=int, default=4, help="blocking threads per worker, as make run")
    parser.add_argument(
        "--interface",
        choices=["asgi", "wsgi"],
        default="asgi",
        help="serve config.asgi as make run does (default), or config.wsgi under granian's WSGI to compare",
    )
    parser.add_argument("--json", type=Path, help="also write the table to this file")
    parser.add_argument(
        "--only",
        help=f"run only the scenarios whose name contains this text (e.g. '{ANALYSIS_LOAD}'); several: split by |",
    )
    parser.add_argument("--port", type=int, default=SERVICE_PORT, help="the service's port; the next two are used too")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench"),
        help="a PostgreSQL database the harness may drop and recreate, or sqlite:////path/to/file as make run serves",
    )
    args = parser.parse_args()

    env = service_env(args.database_url)
    print(f"Preparing a fresh database at {args.database_url} …", flush=True)
    recreate_database(args.database_url)
    manage(env, "migrate", "--noinput", "-v0")
    manage(env, "collectstatic", "--noinput", "-v0")
    data = json.loads(manage(env, "shell", "-c", "from bench.seed import seed; seed()").splitlines()[-1])
    data["healthz_paths"] = ["/healthz"]

    rows: list[Row] = []
    notes: list[str] = []
    visits_made = (0, 0)  # unique visits of the redirect scenarios so far: fewest and most
    wrk_threads = min(args.connections, 4)
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        with server(
            "bench.floor:application", port=args.port + 1, workers=args.workers, threads=args.threads, env=env
        ) as floor_url:
            print("Measuring the floor …", flush=True)
            floor_paths = write_lines(tmpdir, "floor.txt", ["/"])
            floor = run_wrk(
                floor_url,
                script="paths.lua",
                args=[floor_paths],
                duration=args.duration,
                connections=args.connections,
                threads=wrk_threads,
            )
        rows.append(
            Row("floor (bare WSGI 302)", floor.requests_per_second, floor.p50_ms, floor.p99_ms, floor.errors, 1.0, "")
        )

        with server(
            f"config.{args.interface}:application",
            port=args.port,
            workers=args.workers,
            threads=args.threads,
            env=env,
            ready_path="/healthz",
            interface=args.interface,
        ) as url:
            for scenario in scenarios(data):
                if not chosen(args.only, scenario.name):
                    continue
                print(f"Running {scenario.name} …", flush=True)
                if scenario.path_key in VISITED_CODES:
                    codes = data[VISITED_CODES[scenario.path_key]]
                    codes_file = write_lines(tmpdir, f"{scenario.path_key}.txt", codes)
                    result = run_wrk(
                        url,
                        script="visits.lua",
                        args=[codes_file, str(VISITORS), data["shortener_path"]],
                        duration=args.duration,
                        connections=args.connections,
                        threads=args.connections,  # one connection per thread: see visits.lua
                    )
                    note, visits_made = check_visit_counts(args.database_url, data, codes, result, visits_made)
                    notes.append(note)
                else:
                    script_args = [write_lines(tmpdir, f"{scenario.path_key}.txt", data[scenario.path_key])]
                    if scenario.method != "GET":
                        body_file = tmpdir / "body.json"
                        body_file.write_text(scenario.body or "")
                        script_args += [scenario.method, str(body_file)]
                    wrk_run = {
                        "script": "paths.lua",
                        "args": script_args,
                        "duration": args.duration,
                        "connections": args.connections,
                        "threads": wrk_threads,
                        "headers": scenario.headers,
                    }
                    result = run_wrk(url, **wrk_run)
                ratio = result.requests_per_second / floor.requests_per_second
                row = Row(
                    scenario.name,
                    result.requests_per_second,
                    result.p50_ms,
                    result.p99_ms,
                    result.errors,
                    ratio,
                    "",
                )
                if scenario.semantic_floor:
                    print(f"Running the semantic floor of {scenario.name} …", flush=True)
                    own_env = {
                        **env,
                        semantic_floor.REQUESTS_ENV: json.dumps(floor_requests(scenario, data[scenario.path_key])),
                    }
                    with server(
                        "bench.semantic_floor:application",
                        port=args.port + 1,
                        workers=args.workers,
                        threads=args.threads,
                        env=own_env,
                        ready_timeout=120,
                    ) as own_floor_url:
                        own_floor = run_wrk(own_floor_url, **wrk_run)
                    row.semantic_floor_rps = own_floor.requests_per_second
                    row.ratio_to_semantic_floor = result.requests_per_second / own_floor.requests_per_second
                    if own_floor.errors:
                        notes.append(f"semantic floor of {scenario.name}: {own_floor.errors} errors")
                row.target = target_verdict(scenario, ratio, result, rows, row.ratio_to_semantic_floor)
                rows.append(row)

            if chosen(args.only, SLOW_CLIENTS):
                print(f"Running {SLOW_CLIENTS} …", flush=True)
                measured, slow_notes = slow_clients.run(
                    url=url,
                    data=data,
                    tmpdir=tmpdir,
                    wrk={"duration": args.duration, "connections": args.connections, "threads": wrk_threads},
                )
                notes += slow_notes
                for name, result, target_p99_ms in measured:
                    ratio = result.requests_per_second / floor.requests_per_second
                    verdict = target_verdict(Scenario(name, "", target_p99_ms=target_p99_ms), ratio, result)
                    row = (result.requests_per_second, result.p50_ms, result.p99_ms, result.errors, ratio, verdict)
                    rows.append(Row(name, *row))

            if chosen(args.only, ANALYSIS_LOAD):
                print(f"Running {ANALYSIS_LOAD} …", flush=True)
                measured, load_notes = analysis_load.run(
                    url=url,
                    env=env,
                    data=data,
                    database_url=args.database_url,
                    site_port=args.port + 2,
                    tmpdir=tmpdir,
                    wrk={"duration": args.duration, "connections": args.connections, "threads": wrk_threads},
                )
                notes += load_notes
                for name, result, target_p99_ms in measured:
                    ratio = result.requests_per_second / floor.requests_per_second
                    verdict = target_verdict(Scenario(name, "", target_p99_ms=target_p99_ms), ratio, result)
                    rows.append(
                        Row(
                            name,
                            result.requests_per_second,
                            result.p50_ms,
                            result.p99_ms,
                            result.errors,
                            ratio,
                            verdict,
                        )
                    )

    print_table(rows, notes, args)
    if args.json:
        args.json.write_text(json.dumps({"rows": [asdict(r) for r in rows], "notes": notes}, indent=2))
    return 0


def target_verdict(
    scenario: Scenario, ratio: float, result: WrkResult, rows: list[Row] = (), semantic_ratio: float | None = None
) -> str:
    parts = []
    if semantic_ratio is not None:
        ok = semantic_ratio >= SEMANTIC_TARGET
        parts.append(f"≥{SEMANTIC_TARGET:.0%} of own {'met' if ok else 'MISSED'}")
    if scenario.target_ratio is not None:
        ok = ratio >= scenario.target_ratio
        parts.append(f"≥{scenario.target_ratio:.0%} {'met' if ok else 'MISSED'}")
    if scenario.target_p99_ms is not None:
        ok = result.p99_ms < scenario.target_p99_ms
        parts.append(f"p99<{scenario.target_p99_ms:g}ms {'met' if ok else 'MISSED'}")
    if scenario.target_of is not None:
        name, share = scenario.target_of
        other = next((row for row in rows if row.scenario == name), None)
        if other is None or not other.requests_per_second:
            parts.append(f"≥{share:.0%} of {name}: not measured (run it too)")
        else:
            measured = result.requests_per_second / other.requests_per_second
            parts.append(f"{measured:.0%} of {name} (≥{share:.0%} {'met' if measured >= share else 'MISSED'})")
    return ", ".join(parts)


def autogroups() -> str:
    """Whether Linux shares the CPU out by session first: it sets PostgreSQL's tails (bench/README.md)."""
    try:
        enabled = Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:
        return ""
    if enabled:
        return ", Linux autogroups ON (deploy/sysctl-webtools.conf turns them off)"
    return ", Linux autogroups off"


def print_table(rows: list[Row], notes: list[str], args: argparse.Namespace) -> None:
    print()
    print(
        f"{args.duration}s per scenario, {args.connections} connections, "
        f"granian {args.interface.upper()} with {args.workers} workers x {args.threads} threads{autogroups()}"
    )
    header = (
        f"{'scenario':<50} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7} {'floor':>7} "
        f"{'own floor':>9} {'of own':>7}  target"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        ratio = f"{row.ratio_to_floor:.1%}" if row.ratio_to_floor is not None else ""
        own = f"{row.semantic_floor_rps:.0f}" if row.semantic_floor_rps is not None else ""
        of_own = f"{row.ratio_to_semantic_floor:.1%}" if row.ratio_to_semantic_floor is not None else ""
        print(
            f"{row.scenario:<50} {row.requests_per_second:>9.0f} {row.p50_ms:>8.2f} {row.p99_ms:>8.2f} "
            f"{row.errors:>7} {ratio:>7} {own:>9} {of_own:>7}  {row.target}"
        )
    for note in notes:
        print(note)


if __name__ == "__main__":
    os.chdir(PROJECT_DIR)
    sys.exit(main())
