import re
import socket
import time
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

import pytest
from django.core import mail

LINK = re.compile(r"https?://\S+")

STRONG_PASSWORD = "orbit-Lantern-42-velvet"


def signup_data(username: str = "newcomer", email: str = "newcomer@example.org", **extra) -> dict:
    return {"username": username, "email": email, "password1": STRONG_PASSWORD, "password2": STRONG_PASSWORD, **extra}


def links_in(message) -> list[str]:
    return LINK.findall(message.body)


def last_mail_to(address: str):
    sent = [message for message in mail.outbox if address in message.to]
    assert sent, f"no mail to {address} in {[m.to for m in mail.outbox]}"
    return sent[-1]


@pytest.fixture
def registration(settings):
    """Set ACCOUNTS_REGISTRATION (and ACCOUNT_EMAIL_VERIFICATION) for one test."""

    def set_mode(mode: str, verification: str = "mandatory") -> None:
        settings.ACCOUNTS_REGISTRATION = mode
        settings.ACCOUNTS_EMAIL_VERIFICATION = settings.ACCOUNT_EMAIL_VERIFICATION = verification

    return set_mode


class SMTPServer:
    """A real SMTP server (aiosmtpd) on a free port of this machine, keeping what it receives."""

    def __init__(self) -> None:
        from aiosmtpd.controller import Controller

        self.messages: list[EmailMessage] = []
        self.port = free_port()
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    async def handle_DATA(self, server, session, envelope) -> str:  # aiosmtpd's name for the hook
        message = BytesParser(policy=policy.default).parsebytes(envelope.content)
        self.messages.append(message)
        return "250 Message accepted for delivery"

    def wait_for(self, address: str, timeout: float = 10.0) -> EmailMessage:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for message in self.messages:
                if address in message["To"]:
                    return message
            time.sleep(0.05)
        raise AssertionError(f"no mail to {address} reached the SMTP server in {timeout} s")

    def stop(self) -> None:
        self.controller.stop()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def smtp_server():
    server = SMTPServer()
    yield server
    server.stop()
