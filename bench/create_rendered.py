"""Creating reports of a small page with rendering on (issue 50): how many answer 201 with the finished report.

A client written for phpRank reads the report from the create's answer, so the common case, a
small fast page, must answer 201 within REPORTS_ANALYSIS_WAIT rather than 202. Serves a small
page (about 400 bytes) on 127.0.0.1, starts the service as `make run` does (granian with
config.asgi, and `manage.py analysis_worker` rendering in Chromium) on a fresh SQLite file, waits
for the worker's browser to be up, then creates --creates reports of the page one at a time
through the API, each once the one before is done. Prints how many answered 201, the create's
p50 and p95, and the targets: at least 19 of 20 answer 201, p50 at most 2.5 s.

    .venv/bin/python bench/create_rendered.py [--database-url sqlite:////tmp/x.sqlite3] [--creates 20]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.harness import PROJECT_DIR, VENV_BIN, manage, recreate_database, server, stop  # noqa: E402
from bench.run import service_env  # noqa: E402

SERVICE_PORT = 8811
TARGET_CREATED = 19  # of 20
TARGET_P50_SECONDS = 2.5
BROWSER_TIMEOUT_SECONDS = 60
DONE_TIMEOUT_SECONDS = 120
PAGE = b"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>A small page</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="A small, fast page to analyse."></head>
<body><h1>A small page</h1><p>Quick to fetch and to render.</p><a href="/">Home</a></body></html>"""
ISSUE_KEY = """
from django.contrib.auth import get_user_model
from reports.models import ApiKey
print(ApiKey.issue(user=get_user_model().objects.create_user(username="bench-rendered"), name="bench")[1])
"""


class SmallPage(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path != "/":
            self.send_error(404)  # robots.txt, the favicon
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: object) -> None:
        pass


def api(url: str, key: str, method: str = "GET", data: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        url,
        data=urllib.parse.urlencode(data).encode() if data else None,
        headers={"Authorization": f"Bearer {key}", "Accept": "application/json"},
        method=method,
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def worker_browser(worker: subprocess.Popen) -> bool:
    """Whether a rendering browser (its marker switch on the command line) runs among the worker's descendants."""
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit() or b"--webtools-render=" not in (entry / "cmdline").read_bytes():
                continue
        except OSError:
            continue
        pid = int(entry.name)
        while pid > 1:
            pid = parent(pid)
            if pid == worker.pid:
                return True
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default="sqlite:////tmp/webtools_bench_rendered.sqlite3")
    parser.add_argument("--creates", type=int, default=20)
    parser.add_argument("--port", type=int, default=SERVICE_PORT)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    chromium = os.environ.get("REPORTS_CHROMIUM_PATH", "/usr/bin/chromium")
    if not os.access(chromium, os.X_OK):
        print(f"create rendered: skipped, no Chromium at {chromium} (apt-get install chromium)")
        return 0

    # As make run serves, with the default settings (REPORTS_ANALYSIS_WAIT among them) and rendering on.
    env = {**service_env(args.database_url), "REPORTS_RENDER": "1"}
    print(f"Preparing a fresh database at {args.database_url} …", flush=True)
    recreate_database(args.database_url)
    manage(env, "migrate", "--noinput", "-v0")
    key = manage(env, "shell", "-c", ISSUE_KEY).splitlines()[-1]

    site = ThreadingHTTPServer(("127.0.0.1", 0), SmallPage)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    page = f"http://127.0.0.1:{site.server_port}/"
    worker = subprocess.Popen(
        [str(VENV_BIN / "python"), "manage.py", "analysis_worker"], cwd=PROJECT_DIR, env=env, stdout=subprocess.DEVNULL
    )
    seconds, finished, statuses, rendered = [], [], [], 0
    try:
        with server(
            "config.asgi:application", port=args.port, workers=1, threads=4, env=env, interface="asgi",
            ready_path="/healthz",
        ) as url:  # fmt: skip
            started = time.monotonic()
            while not worker_browser(worker):
                if time.monotonic() - started > BROWSER_TIMEOUT_SECONDS or worker.poll() is not None:
                    sys.exit("The analysis worker started no browser.")
                time.sleep(0.1)
            print(f"The worker's browser is up {time.monotonic() - started:.1f} s after the service", flush=True)
            for _ in range(args.creates):
                began = time.monotonic()
                status, body = api(f"{url}/api/v1/reports", key, "POST", {"url": page})
                seconds.append(time.monotonic() - began)
                statuses.append(status)
                report = body["data"]
                waited = time.monotonic()
                while report["status"] in ("queued", "running"):  # one at a time: the next waits for this one
                    if time.monotonic() - waited > DONE_TIMEOUT_SECONDS:
                        sys.exit(f"Report {report['id']} was not done within {DONE_TIMEOUT_SECONDS} s.")
                    time.sleep(0.2)
                    report = api(f"{url}/api/v1/reports/{report['id']}", key)[1]["data"]
                finished.append(time.monotonic() - began)  # past the wait too, to within a poll
                rendered += report["metrics"] is not None  # lab metrics come only from a rendering
    finally:
        stop(worker, grace=15)
        site.shutdown()

    created = statuses.count(201)
    p50 = statistics.median(seconds)
    p95 = statistics.quantiles(seconds, n=20, method="inclusive")[-1] if len(seconds) > 1 else seconds[0]
    wanted_created = round(TARGET_CREATED * args.creates / 20)
    print(f"\nCreate of a small page, rendered, one at a time ({args.creates} creates, {os.cpu_count()} cores)")
    print(f"  answers: {', '.join(f'{statuses.count(code)} x {code}' for code in sorted(set(statuses)))}")
    print(f"  rendered: {rendered} of {args.creates}")
    print(f"  create time: p50 {p50:.2f} s, p95 {p95:.2f} s, slowest {max(seconds):.2f} s")
    print(f"  done after: p50 {statistics.median(finished):.2f} s, slowest {max(finished):.2f} s (polled every 0.2 s)")
    print(f"  target ≥ {wanted_created}/{args.creates} answer 201: {'met' if created >= wanted_created else 'MISSED'}")
    print(f"  target p50 ≤ {TARGET_P50_SECONDS:g} s: {'met' if p50 <= TARGET_P50_SECONDS else 'MISSED'}")
    if args.json:
        figures = {"statuses": statuses, "seconds": seconds, "finished": finished, "rendered": rendered}
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
