"""`manage.py invite EMAIL`: mail someone a link to make their account (ACCOUNTS_REGISTRATION=invite)."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import validate_email

from accounts import invitations


def default_base_url() -> str:
    """The site's address as its settings name it: the first host that is not a pattern."""
    host = next((host for host in settings.ALLOWED_HOSTS if host and host[0] not in ".*"), "127.0.0.1:8000")
    return f"{'https' if settings.HTTPS else 'http'}://{host}"


class Command(BaseCommand):
    help = "Mail an invitation to make an account to EMAIL (single use, expires after ACCOUNTS_INVITE_MAX_AGE days)."

    def add_arguments(self, parser):
        parser.add_argument("email")
        parser.add_argument("--base-url", help="Where the service is served (default: from ALLOWED_HOSTS and HTTPS).")
        languages = [code for code, _ in settings.LANGUAGES]
        parser.add_argument(
            "--language",
            choices=languages,
            default=settings.LANGUAGE_CODE,
            help="The mail's language (default: %(default)s).",
        )

    def handle(self, *args, **options):
        email = options["email"].strip()
        try:
            validate_email(email)
        except ValidationError:
            raise CommandError(f"{email!r} is not an email address.") from None
        if invitations.has_account(email):
            raise CommandError(f"An account already has the address {email}.")
        link = invitations.send_invitation(
            email, options["base_url"] or default_base_url(), language=options["language"]
        )
        self.stdout.write(f"Invitation mailed to {email}: {link}")
        if settings.ACCOUNTS_REGISTRATION != "invite" and settings.ACCOUNTS_REGISTRATION != "open":
            self.stderr.write(
                f"ACCOUNTS_REGISTRATION is {settings.ACCOUNTS_REGISTRATION}: the link works once it is invite or open."
            )
