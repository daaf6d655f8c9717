"""Bench scripts that tests run end to end on a few requests, so that they cannot rot between runs.

No timing is asserted (the developers' guide keeps speed targets in bench/): each script stops
by itself unless what it measured was right, and these tests check that it did not stop.
"""

import subprocess
import sys
from pathlib import Path

import pytest

PROJECT_DIR = Path(__file__).resolve().parents[2]


def run_bench_script(script: str, *args: str) -> str:
    """Run bench/<script> with its own settings and return what it printed.

    None of the test run's environment (DATABASE_URL) may leak in.
    """
    env = {"PATH": "/usr/bin:/bin", "HOME": str(PROJECT_DIR)}
    command = [sys.executable, f"bench/{script}", *args]
    result = subprocess.run(command, cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=280)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.timeout(300)
def test_the_redirect_python_benchmark_answers_every_request_with_the_shortcut():
    # It stops unless every request it makes was answered by the shortcut's 302.
    printed = run_bench_script("redirect_python.py", "--requests", "300", "--profile")

    assert "us per redirect, best" in printed
    assert "shortcut_answer" in printed  # the profile shows the path it measured


@pytest.mark.timeout(300)
def test_the_visit_durability_benchmark_counts_every_visit_it_writes(tmp_path):
    # It had rotted once: it imported names the visit buffer no longer had. It stops unless every
    # visit it wrote was counted.
    database_url = f"sqlite:///{tmp_path / 'durability.sqlite3'}"
    printed = run_bench_script("visit_durability.py", "--n", "50", "--database-url", database_url)

    assert "memory buffer (today)" in printed
    assert "SQLite, in the request" in printed
