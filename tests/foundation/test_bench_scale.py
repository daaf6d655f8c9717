"""bench/scale.py runs end to end at a tiny size, so that it cannot rot between the runs its figures come from.

Timings are not asserted here (the developers' guide keeps speed targets in bench/): only that
every endpoint gets its row and answers without a server error.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.scale import endpoints
from tests.servers import free_port

PROJECT_DIR = Path(__file__).resolve().parents[2]
# Enough to fill every field endpoints() reads; the values do not matter for the names.
FAKE_SEED = {
    "shortener_path": "/s/",
    "pastes_path": "/pastes/",
    "code": "z1",
    "report_id": 1,
    "paste_id": "p00000000001",
    "owner": "scale-owner",
    "links": 1,
    "own_reports": 1,
    "own_projects": 1,
    "owned_pastes": 1,
    "own_links": 1,
}


@pytest.mark.timeout(600)  # migrating and serving a real database takes a minute on a busy machine
def test_scale_benchmark_prints_a_row_per_endpoint_at_a_tiny_size(tmp_path):
    command = [sys.executable, "-m", "bench.scale", "--sizes", "sqlite:50", "--requests", "1", "--warmup", "0"]
    command += ["--budget", "0", "--port", str(free_port()), "--sqlite-dir", str(tmp_path)]
    command += ["--json", str(tmp_path / "rows.json")]
    if (PROJECT_DIR / "staticfiles" / "staticfiles.json").exists():
        command.append("--no-collectstatic")
    result = subprocess.run(command, cwd=PROJECT_DIR, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]

    names = [endpoint.name for endpoint in endpoints(FAKE_SEED)]
    rows = json.loads((tmp_path / "rows.json").read_text())["rows"]
    assert [row["endpoint"] for row in rows] == names
    table = result.stdout.split("endpoint (sqlite)", 1)[1]
    for name in names:
        assert name in table
    assert [row["endpoint"] for row in rows if row["large"]["status"] >= 500] == []
    assert all(row["large_size"] == 50 and row["verdict"] for row in rows)


@pytest.mark.timeout(300)
def test_visit_batch_benchmark_writes_every_visit_and_prints_each_statement(tmp_path):
    # The script asserts itself that each batch counted every visit it wrote.
    database = tmp_path / "batch.sqlite3"
    command = [sys.executable, "bench/visit_batch.py", "--database-url", f"sqlite:///{database}"]
    result = subprocess.run(
        [*command, "--batches", "2", "--visits", "50"], cwd=PROJECT_DIR, capture_output=True, text=True, timeout=280
    )
    assert result.returncode == 0, result.stderr
    for row in ("Visit rows", "breakdowns", "links' counters", "per-link days", "whole batch"):
        assert row in result.stdout
