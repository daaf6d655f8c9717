"""Server time, queries and a cProfile of the bench's Django endpoints, in one process.

    .venv/bin/python bench/profile_endpoints.py --database-url postgres://postgres@127.0.0.1:5432/profile

Seeds the database as `make bench` does (bench/seed.py; the database is dropped and recreated
unless --reuse finds the seed's answer from an earlier run beside it), then calls the WSGI
application `make run` serves (config.wsgi: the redirect shortcut, every middleware, the view)
directly, one request after another, with the bench's environment (DEBUG=0, rate limits lifted).
Per endpoint: the CPU time of a request (this thread's: the mean over --requests, and the best
batch of 50), its wall time, queries a request, then a second pass under cProfile: Python
function calls a request and the top entries by own and by cumulative time. No server, no
client, no sockets. On a shared machine the times move with the neighbours; the best batch,
the queries and the function calls are what repeat from run to run.
"""

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import SECRET_KEY, django_on_fresh_database, setup_django
from bench.run import service_env

BATCH = 50
CREATE_BODY = json.dumps({"name": "bench paste", "content": "print('hello')\n" * 20, "exposure": "unlisted"})


def endpoints(data: dict) -> list[tuple[str, str, list[str], dict, bytes]]:
    """(name, method, paths, headers, body) of each endpoint profiled: the bench's scenarios."""
    reports_auth = {"Authorization": f"Bearer {data['reports_key']}", "Accept": "application/json"}
    pastes_auth = {"Authorization": data["pastes_key"], "Content-Type": "application/json"}
    return [
        ("A list reports (25)", "GET", data["report_list_paths"], reports_auth, b""),
        ("A show report", "GET", data["report_paths"], reports_auth, b""),
        ("B GET /paste/@id", "GET", data["paste_paths"], {}, b""),
        ("B POST /create", "POST", data["create_paths"], pastes_auth, CREATE_BODY.encode()),
        ("C GET /stats/<code>", "GET", data["stats_paths"], {}, b""),
        ("GET /healthz", "GET", ["/healthz"], {}, b""),
    ]


def environ(method: str, path: str, headers: dict, body: bytes) -> dict:
    """A WSGI environ as granian hands one to the application."""
    path, _, query = path.partition("?")
    env = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "127.0.0.1:8000",
        "HTTP_USER_AGENT": "wrk",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "CONTENT_LENGTH": str(len(body)) if body else "",
    }
    for name, value in headers.items():
        if name.lower() == "content-type":
            env["CONTENT_TYPE"] = value
        else:
            env["HTTP_" + name.upper().replace("-", "_")] = value
    return env


def call(application, method: str, path: str, headers: dict, body: bytes) -> tuple[str, bytes]:
    status = []

    def start_response(line, response_headers, exc_info=None):
        status.append(line)

    result = application(environ(method, path, headers, body), start_response)
    try:
        content = b"".join(result)
    finally:
        if hasattr(result, "close"):
            result.close()
    return status[0], content


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/profile")
    parser.add_argument("--requests", type=int, default=500, help="requests per endpoint, after 50 to warm up")
    parser.add_argument("--top", type=int, default=25, help="profile entries shown per endpoint")
    parser.add_argument("--only", help="profile the endpoints whose name contains this")
    parser.add_argument("--reuse", action="store_true", help="keep the database seeded by an earlier run")
    parser.add_argument("--dump", type=Path, help="also write each endpoint's profile to this directory (pstats files)")
    parser.add_argument("--no-profile", action="store_true", help="times and queries only (no cProfile overhead)")
    args = parser.parse_args()

    env = service_env(args.database_url)
    env["SECRET_KEY"] = SECRET_KEY
    seed_file = Path(f"/tmp/profile_endpoints_seed_{args.database_url.rpartition('/')[2]}.json")
    if args.reuse and seed_file.exists():
        setup_django(**env)
        data = json.loads(seed_file.read_text())
    else:
        os.environ.update(env)
        django_on_fresh_database(args.database_url)
        from bench.seed import seed

        captured = io.StringIO()
        stdout, sys.stdout = sys.stdout, captured
        try:
            seed()
        finally:
            sys.stdout = stdout
        data = json.loads(captured.getvalue().splitlines()[-1])
        seed_file.write_text(json.dumps(data))

    from django.db import connection

    from config.wsgi import application

    queries = [0]

    def count(execute, sql, params, many, context):
        queries[0] += 1
        return execute(sql, params, many, context)

    for name, method, paths, headers, body in endpoints(data):
        if args.only and args.only not in name:
            continue
        for index in range(50):
            status, _ = call(application, method, paths[index % len(paths)], headers, body)
        if not status.startswith(("200", "201")):
            sys.exit(f"{name}: {status}")
        # Timed without the profiler, in batches: on a shared machine the best batch is the
        # figure that repeats; the mean says what the run met.
        queries[0] = 0
        batches = []
        with connection.execute_wrapper(count):
            for start in range(0, args.requests, BATCH):
                wall, cpu = time.perf_counter(), time.thread_time()
                size = min(BATCH, args.requests - start)
                for index in range(start, start + size):
                    call(application, method, paths[(index + 50) % len(paths)], headers, body)
                batches.append((time.perf_counter() - wall, time.thread_time() - cpu, size))
        cpu_mean = sum(cpu for _, cpu, _ in batches) / args.requests * 1000
        cpu_best = min(cpu / n for _, cpu, n in batches) * 1000
        wall_mean = sum(wall for wall, _, _ in batches) / args.requests * 1000
        line = (
            f"\n## {name}: CPU {cpu_mean:.2f} ms a request (best batch {cpu_best:.2f}), wall {wall_mean:.2f} ms, "
            f"{queries[0] / args.requests:.1f} queries ({args.requests} requests)"
        )
        if not args.no_profile:
            profile = cProfile.Profile()
            profile.enable()
            for index in range(args.requests):
                call(application, method, paths[(index + 50) % len(paths)], headers, body)
            profile.disable()
            stats = pstats.Stats(profile)
            # Deterministic where times are not: what the code does, whatever else runs.
            line += f", {stats.total_calls / args.requests:,.0f} Python function calls a request"
        print(line, flush=True)
        if args.no_profile:
            continue
        if args.dump:
            args.dump.mkdir(parents=True, exist_ok=True)
            profile.dump_stats(args.dump / ("".join(c for c in name if c.isalnum()) + ".pstats"))
        for order in ("tottime", "cumulative"):
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats(order).print_stats(args.top)
            rows = out.getvalue().splitlines()
            print("\n".join(row for row in rows if row.strip()[:1].isdigit() or "ncalls" in row))


if __name__ == "__main__":
    main()
