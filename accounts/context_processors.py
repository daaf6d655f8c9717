from django.conf import settings
from django.http import HttpRequest

from accounts import invitations


def registration(request: HttpRequest) -> dict[str, object]:
    """Whether pages offer the sign-up and password forms: no query, the forms themselves check again."""
    mode = settings.ACCOUNTS_REGISTRATION
    invited = mode == "invite" and invitations.SESSION_KEY in getattr(request, "session", {})
    password_login = settings.ACCOUNTS_PASSWORD_LOGIN
    return {
        "registration": mode,
        "signup_open": password_login and (mode == "open" or invited),
        "password_login": password_login,
        "oidc_name": settings.OIDC_NAME,
    }
