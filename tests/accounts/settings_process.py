"""Settings read by a new process, as the service reads them at start-up from its environment."""

import os
import subprocess
import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]
# The sign-in settings this test process may carry: the new process sees only what a test gives it.
SIGN_IN_PREFIXES = ("OIDC_", "LDAP_", "ACCOUNTS_")


def settings_in_a_new_process(code: str, **env: str) -> subprocess.CompletedProcess:
    """Run `code` after django.setup() in a new Python process with `env` (sys and settings imported)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(SIGN_IN_PREFIXES) and k != "DATABASE_URL"}
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); import sys; from django.conf import settings; " + code],
        cwd=PROJECT_DIR,
        env={**clean, "SECRET_KEY": "x" * 50, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
