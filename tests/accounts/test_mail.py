"""Mail through a real SMTP server (aiosmtpd, started here): Django's EMAIL_* names, the MAIL_*
names read before as fallbacks, and the console when no host is set (issue 44, item 2)."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from rest_framework import status

from tests.accounts.conftest import LINK, STRONG_PASSWORD, signup_data

PROJECT_DIR = Path(__file__).resolve().parents[2]
MAIL_VARIABLES = ("EMAIL_", "MAIL_", "DEFAULT_FROM_EMAIL")


def sendtestemail(**env: str) -> subprocess.CompletedProcess:
    """Django's `manage.py sendtestemail`, in a process of its own that reads only these mail variables."""
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(MAIL_VARIABLES) and not k.startswith("DJANGO_ALLOW")
    }
    return subprocess.run(
        [sys.executable, "manage.py", "sendtestemail", "ops@example.org"],
        cwd=PROJECT_DIR,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_email_host_and_port_send_through_that_smtp_server(smtp_server):
    result = sendtestemail(
        EMAIL_HOST="127.0.0.1", EMAIL_PORT=str(smtp_server.port), DEFAULT_FROM_EMAIL="Tools <tools@example.org>"
    )

    assert result.returncode == 0, result.stderr
    message = smtp_server.wait_for("ops@example.org")
    assert message["From"] == "Tools <tools@example.org>"
    assert message["Subject"].startswith("Test email from")


def test_an_older_deployment_s_mail_host_still_sends(smtp_server):
    result = sendtestemail(MAIL_HOST="127.0.0.1", MAIL_PORT=str(smtp_server.port), MAIL_FROM="alerts@example.org")

    assert result.returncode == 0, result.stderr
    assert smtp_server.wait_for("ops@example.org")["From"] == "alerts@example.org"


def test_email_host_wins_over_mail_host(smtp_server):
    result = sendtestemail(
        EMAIL_HOST="127.0.0.1", EMAIL_PORT=str(smtp_server.port), MAIL_HOST="192.0.2.1", MAIL_PORT="1"
    )

    assert result.returncode == 0, result.stderr
    assert smtp_server.wait_for("ops@example.org")


def test_without_a_host_mail_is_printed_on_the_console():
    result = sendtestemail()

    assert result.returncode == 0, result.stderr
    assert "Subject: Test email from" in result.stdout
    assert "To: ops@example.org" in result.stdout


@pytest.mark.django_db
def test_the_printed_confirmation_link_is_whole_so_it_can_be_opened_from_the_terminal(client, settings):
    # make run's case: no EMAIL_HOST. On the wire the link's long line would be cut by "=" soft breaks.
    printed = io.StringIO()
    settings.ACCOUNTS_REGISTRATION = "open"
    settings.MAILERS = {
        "default": {"BACKEND": "common.mail.ReadableConsoleEmailBackend", "OPTIONS": {"stream": printed}}
    }

    client.post("/accounts/signup/", signup_data())

    text = printed.getvalue()
    assert "To: newcomer@example.org\nSubject: [Webtools] Please Confirm Your Email Address" in text
    (link,) = [link for link in LINK.findall(text) if "/accounts/confirm-email/" in link]
    assert link.endswith("/") and "=\n" not in text
    assert client.post(link.split("testserver", 1)[1]).status_code == status.HTTP_302_FOUND


@pytest.mark.django_db
def test_the_sign_up_confirmation_arrives_by_smtp_and_its_link_confirms(client, settings, smtp_server):
    settings.ACCOUNTS_REGISTRATION = "open"
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": smtp_server.port, "timeout": 10},
        }
    }

    client.post("/accounts/signup/", signup_data(next="/pastes/"))

    message = smtp_server.wait_for("newcomer@example.org")
    assert message["Subject"] == "[Webtools] Please Confirm Your Email Address"
    (link,) = [link for link in LINK.findall(message.get_content()) if "/accounts/confirm-email/" in link]
    path = link.split("testserver", 1)[1]
    assert client.post(path).status_code == status.HTTP_302_FOUND
    response = client.post("/accounts/login/", {"login": "newcomer", "password": STRONG_PASSWORD, "next": "/pastes/"})
    assert response["Location"] == "/pastes/"
    assert get_user_model().objects.get(username="newcomer").emailaddress_set.get().verified
