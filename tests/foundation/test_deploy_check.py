import os
import subprocess
import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]

PRODUCTION_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "k3J9v-Yq2w_Lr8pZ1sXc4Vb7Nm0Qa5Ed6Rf9Tg2Hy3Uj4Ik5Ol6P7",
    "HTTPS": "1",
    "ALLOWED_HOSTS": "webtools.example",
    # The account area mails confirmations and password resets: a deployment names its SMTP server.
    "EMAIL_HOST": "smtp.webtools.example",
}


def run_check(**env: str) -> subprocess.CompletedProcess:
    # Only the mail variables given here count: none of the caller's own.
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=PROJECT_DIR,
        # Test-only variables (the browser fixture allows async-unsafe calls) stay out.
        env={**{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_ALLOW", "EMAIL_", "MAIL_"))}, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_production_settings():
    result = run_check(**PRODUCTION_ENV)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout + result.stderr


def test_check_deploy_flags_a_deployment_without_https():
    result = run_check(**{**PRODUCTION_ENV, "HTTPS": "0"})

    assert result.returncode != 0
    assert "security.W008" in result.stderr  # SECURE_SSL_REDIRECT


def test_check_deploy_flags_a_deployment_that_would_print_its_mails():
    production = {k: v for k, v in PRODUCTION_ENV.items() if k != "EMAIL_HOST"}

    result = run_check(**production)

    assert result.returncode != 0
    assert "common.E001" in result.stderr  # mails only printed, with no EMAIL_HOST (docs/deployment.md)
    assert "Set EMAIL_HOST" in result.stderr
