"""bench/visit_durability.py runs end to end on a few visits, so that it cannot rot between runs.

It had: it imported names the visit buffer no longer had. No timing is asserted (speed targets
live in bench/); the script itself stops unless every visit it wrote was counted.
"""

import subprocess
import sys
from pathlib import Path

import pytest

PROJECT_DIR = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(300)
def test_the_visit_durability_benchmark_counts_every_visit_it_writes(tmp_path):
    database_url = f"sqlite:///{tmp_path / 'durability.sqlite3'}"
    command = [sys.executable, "bench/visit_durability.py", "--n", "50", "--database-url", database_url]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(PROJECT_DIR)}
    result = subprocess.run(command, cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=280)

    assert result.returncode == 0, result.stderr
    assert "memory buffer (today)" in result.stdout
    assert "SQLite, in the request" in result.stdout
