"""Scenario "under analysis load": the fast paths while 50 slow analyses are queued or running.

Fifty reports of a local page that answers after 9 s are created from five API keys, and the
analysis worker (`manage.py analysis_worker`, as `make run` starts it) works through them
while wrk measures the redirect, a paste read and /healthz one after the other. Afterwards
every analysis must be done, none lost: fifty reports with status done, fifty successful tasks.
"""

import json
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from bench.harness import PROJECT_DIR, VENV_BIN, WrkResult, connect, manage, run_wrk, stop

ANALYSES = 50
LIMITED_REDIRECT = "C redirect, link with max_visits"
KEYS = 5
PAGE_DELAY_SECONDS = 9
FINISH_TIMEOUT_SECONDS = 600
SLOW_PAGE = b"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>A slow page</title>
<meta name="description" content="A page that takes nine seconds to answer."></head>
<body><h1>A slow page</h1><p>It answers after nine seconds.</p></body></html>"""
ISSUE_KEYS = f"""
import json
from django.contrib.auth import get_user_model
from reports.models import ApiKey
users = [get_user_model().objects.create_user(username=f"analysis-load-{{n}}") for n in range({KEYS})]
print(json.dumps([ApiKey.issue(user=user, name="bench")[1] for user in users]))
"""
# (scenario name, seed data key, p99 target in ms)
MEASURED = [
    ("C redirect GET /<code>", "redirect_paths", 50),
    # Each first visit a database write during the request, as a paste read is: the same target.
    (LIMITED_REDIRECT, "limited_redirect_paths", 100),
    ("B GET /paste/@id", "paste_paths", 100),
    ("GET /healthz", "healthz_paths", 100),
]


class SlowPage(BaseHTTPRequestHandler):
    """The page to analyse answers after PAGE_DELAY_SECONDS; robots.txt and the rest are 404 at once."""

    def do_GET(self) -> None:
        if self.path != "/slow":
            self.send_error(404)
            return
        time.sleep(PAGE_DELAY_SECONDS)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(SLOW_PAGE)))
        self.end_headers()
        self.wfile.write(SLOW_PAGE)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def slow_site(port: int):
    site = ThreadingHTTPServer(("127.0.0.1", port), SlowPage)
    site.daemon_threads = True
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/slow"
    finally:
        site.shutdown()


@contextmanager
def analysis_worker(env: dict[str, str]):
    process = subprocess.Popen(
        [str(VENV_BIN / "python"), "manage.py", "analysis_worker"],
        cwd=PROJECT_DIR,
        # 9 s is close to the default 10 s fetch timeout: on a busy machine some would time out.
        env={**env, "REPORTS_FETCH_TIMEOUT": "30"},
        stdout=subprocess.DEVNULL,  # a line per task
    )
    try:
        yield process
    finally:
        stop(process, grace=30)  # time for the running analyses to finish


def create_report(url: str, key: str, page: str) -> int:
    request = urllib.request.Request(
        f"{url}/api/v1/reports",
        data=urllib.parse.urlencode({"url": page}).encode(),
        headers={"Authorization": f"Bearer {key}", "Accept": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.status


def unfinished(database_url: str) -> int:
    with connect(database_url) as conn:
        return conn.execute("SELECT count(*) FROM reports_report WHERE status IN ('queued', 'running')").fetchone()[0]


def successful_tasks(database_url: str) -> int:
    with connect(database_url) as conn:
        return conn.execute(
            "SELECT count(*) FROM django_tasks_database_dbtaskresult WHERE status = 'SUCCESSFUL'"
        ).fetchone()[0]


def wait_until_finished(database_url: str) -> tuple[dict[str, int], int, float]:
    started = time.monotonic()
    # A task's result is recorded a moment after its report is done: wait for both, or a busy
    # machine reads 49 successful tasks for 50 done reports and calls one lost.
    while (unfinished(database_url) or successful_tasks(database_url) < ANALYSES) and (
        time.monotonic() - started < FINISH_TIMEOUT_SECONDS
    ):
        time.sleep(1)
    with connect(database_url) as conn:
        statuses = dict(
            conn.execute(
                "SELECT status, count(*) FROM reports_report r JOIN auth_user u ON u.id = r.owner_id "
                "WHERE u.username LIKE 'analysis-load-%' GROUP BY status"
            ).fetchall()
        )
        successful = conn.execute(
            "SELECT count(*) FROM django_tasks_database_dbtaskresult WHERE status = 'SUCCESSFUL'"
        ).fetchone()[0]
    return statuses, successful, time.monotonic() - started


def _paths_file(tmpdir: Path, key: str, paths: dict[str, list[str]]) -> str:
    path = tmpdir / f"load-{key}.txt"
    path.write_text("\n".join(paths[key]) + "\n")
    return str(path)


def run(
    *, url: str, env: dict[str, str], data: dict, database_url: str, site_port: int, tmpdir: Path, wrk: dict
) -> tuple[list[tuple[str, WrkResult, float]], list[str]]:
    """Measure MEASURED without and then under the analysis load; return (name, result, p99 target) rows and notes."""
    keys = json.loads(manage(env, "shell", "-c", ISSUE_KEYS).splitlines()[-1])
    paths = {
        "redirect_paths": [f"{data['shortener_path']}{code}" for code in data["codes"]],
        "limited_redirect_paths": [f"{data['shortener_path']}{code}" for code in data["limited_codes"]],
        "paste_paths": data["paste_paths"],
        "healthz_paths": ["/healthz"],
    }
    rows, notes = [], []
    # The same paths without analyses first: on a shared machine, the difference is what counts.
    for name, key, _ in MEASURED:
        result = run_wrk(url, script="paths.lua", args=[_paths_file(tmpdir, key, paths)], **wrk)
        rows.append((f"{name} (no analyses)", result, None))
    with slow_site(site_port) as page, analysis_worker(env):
        with ThreadPoolExecutor(ANALYSES) as pool:
            answers = list(pool.map(lambda n: create_report(url, keys[n % KEYS], page), range(ANALYSES)))
        notes.append(
            f"analysis load: {ANALYSES} reports created from {KEYS} keys, answers "
            + ", ".join(f"{answers.count(code)} x {code}" for code in sorted(set(answers)))
        )
        for name, key, target in MEASURED:
            before = unfinished(database_url)
            result = run_wrk(url, script="paths.lua", args=[_paths_file(tmpdir, key, paths)], **wrk)
            notes.append(f"  {name}: {before} → {unfinished(database_url)} analyses queued or running")
            rows.append((f"{name} (analysis load)", result, target))
        statuses, successful, waited = wait_until_finished(database_url)
    done = statuses.get("done", 0)
    verdict = "ok" if done == ANALYSES and successful == ANALYSES else "LOST OR FAILED"
    notes.append(
        f"analysis load: {done} of {ANALYSES} done ({statuses}), {successful} successful tasks, "
        f"last finished {waited:.0f} s after the measurements ({verdict})"
    )
    return rows, notes
