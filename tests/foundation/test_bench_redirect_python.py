"""bench/redirect_python.py runs end to end on a few requests, so that it cannot rot between runs.

No timing is asserted (the developers' guide keeps speed targets in bench/); the script itself
stops unless every request it makes was answered by the shortcut's 302.
"""

import subprocess
import sys
from pathlib import Path

import pytest

PROJECT_DIR = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(300)
def test_the_redirect_python_benchmark_answers_every_request_with_the_shortcut():
    command = [sys.executable, "bench/redirect_python.py", "--requests", "300", "--profile"]
    # Its own settings and SQLite file: none of the test run's environment (DATABASE_URL) may leak in.
    env = {"PATH": "/usr/bin:/bin", "HOME": str(PROJECT_DIR)}
    result = subprocess.run(command, cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=280)

    assert result.returncode == 0, result.stderr
    assert "us per redirect, best" in result.stdout
    assert "shortcut_answer" in result.stdout  # the profile shows the path it measured
