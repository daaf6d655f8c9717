from django.conf import settings
from django.http import HttpRequest

from accounts import invitations


def registration(request: HttpRequest) -> dict[str, object]:
    """Whether pages offer the sign-up form: no query, the form itself checks an invitation again."""
    mode = settings.ACCOUNTS_REGISTRATION
    invited = mode == "invite" and invitations.SESSION_KEY in getattr(request, "session", {})
    return {"registration": mode, "signup_open": mode == "open" or invited}
