"""The language a signed-in person chose for the pages (Preferences.language), wherever they sign in.

Both the footer's switcher and the profile page's language form post to `set_language`: Django's
view (the cookie and the redirect back), which also keeps the choice of a signed-in person. At
sign-in their preference becomes the browser's language cookie (common/locale.py says why the
cookie carries it).
"""

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.views import i18n
from django.views.decorators.http import require_POST

from accounts.models import Preferences
from common.locale import remember_language, supported

# The profile form's value for "no preference": the browser's languages decide again.
BROWSER_CHOICE = ""


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """Django's set_language; for a signed-in person, the choice is also their preference."""
    response = i18n.set_language(request)
    language = request.POST.get(i18n.LANGUAGE_QUERY_PARAMETER)
    if language == BROWSER_CHOICE:
        response.delete_cookie(
            settings.LANGUAGE_COOKIE_NAME, path=settings.LANGUAGE_COOKIE_PATH, domain=settings.LANGUAGE_COOKIE_DOMAIN
        )
    if request.user.is_authenticated and (language == BROWSER_CHOICE or (language and supported(language))):
        Preferences.objects.update_or_create(user=request.user, defaults={"language": language})
    return response


def preferred_language(user) -> str:
    """The user's chosen language, or "" (none chosen, or one the operator has since taken out of LANGUAGES)."""
    language = Preferences.objects.filter(user=user).values_list("language", flat=True).first() or ""
    return language if supported(language) else ""


@receiver(user_logged_in, dispatch_uid="accounts.language.apply_preference")
def apply_preference(sender: object, request: HttpRequest | None, user, **kwargs: object) -> None:
    if request is None:
        return
    language = preferred_language(user)
    if language:
        remember_language(request, language)
