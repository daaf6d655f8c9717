"""Mail printed on the console, readable: the backend when no SMTP host is set (make run)."""

from django.conf import settings
from django.core import checks
from django.core.mail.backends.console import EmailBackend

BACKEND = "common.mail.ReadableConsoleEmailBackend"


class ReadableConsoleEmailBackend(EmailBackend):
    """Django's console backend, with the text as it reads instead of the message's wire form.

    On the wire a line longer than 78 characters, every confirmation or reset link, is cut with
    quoted-printable's `=` soft breaks, so the link printed by Django's own backend cannot be
    opened or copied from the terminal that `make run` shows.
    """

    def write_message(self, message) -> None:
        self.stream.write(f"From: {message.from_email}\nTo: {', '.join(message.to)}\nSubject: {message.subject}\n\n")
        self.stream.write(f"{message.body}\n{'-' * 79}\n")


@checks.register(checks.Tags.mail, deploy=True)
def mail_is_sent(app_configs, **kwargs) -> list[checks.CheckMessage]:
    """As Django's mail.E001 for its console backend: a deployment sends its mails."""
    if settings.MAILERS.get("default", {}).get("BACKEND") != BACKEND:
        return []
    return [
        checks.Error(
            "No SMTP server is set: mails (sign-up confirmations, password resets, alerts) are only printed.",
            hint="Set EMAIL_HOST (and EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS).",
            id="common.E001",
        )
    ]
