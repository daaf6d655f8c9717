"""The reader's language on pages, English on the APIs.

Pages follow, in this order: the signed-in person's preference (set in the account area,
accounts/language.py), the language cookie (set by the footer's switcher), Accept-Language,
then LANGUAGE_CODE. The preference reaches this middleware as the cookie: it is written when the
person chooses and again when they sign in (`remember_language`), so no request reads the
database or the session for it. That keeps the middleware where Django documents it (after the
session, before CommonMiddleware) and free on every request; the price is that a choice made in
one browser reaches another one at its next sign-in.

The JSON APIs answer in English whatever the reader asks for: clients match IdefaSoft's and
Lstu's messages and A's shapes word for word, so neither DRF's own messages nor ours may follow
Accept-Language there, and those answers get no `Vary: Accept-Language` either. C answers JSON
and HTML on the same paths; its views render their JSON in English themselves
(`translation.override`).
"""

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.middleware.locale import LocaleMiddleware
from django.utils import translation

# Pages under the API's prefixes: the API documentation's own words (its header, footer) are translated;
# what Swagger UI draws from the schema stays English, as the API does.
PAGES_UNDER_API = ("/api/docs/",)


def english_only_prefixes() -> tuple[str, ...]:
    """The path prefixes of the JSON APIs: A's /api/ and B's IdefaSoft-compatible routes."""
    pastes = f"/{settings.PASTES_PREFIX}/" if settings.PASTES_PREFIX else "/"
    return ("/api/", *(pastes + route for route in ("create", "paste/@", "edit/", "delete/", "accounts/@")))


def supported(language: str) -> bool:
    return language in dict(settings.LANGUAGES)


def is_english_only(path: str, prefixes: tuple[str, ...] | None = None) -> bool:
    """Whether `path` is the APIs' (`prefixes`: english_only_prefixes(), made once by the middleware)."""
    return path.startswith(prefixes or english_only_prefixes()) and not path.startswith(PAGES_UNDER_API)


def remember_language(request: HttpRequest, language: str) -> None:
    """Use `language` from now on in this browser: through the cookie, and for the rest of this request
    (a sign-in's flash message is written in it), unless the request is the API's."""
    request.remembered_language = language
    if not is_english_only(request.path_info):
        translation.activate(language)
        request.LANGUAGE_CODE = language


def set_language_cookie(response: HttpResponse, language: str) -> None:
    """The cookie as Django's set_language writes it."""
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


class ReaderLanguageMiddleware(LocaleMiddleware):
    def __init__(self, get_response):
        super().__init__(get_response)
        self.english_only = english_only_prefixes()

    def _english_only(self, request: HttpRequest) -> bool:
        return is_english_only(request.path_info, self.english_only)

    def process_request(self, request):
        if self._english_only(request):
            translation.activate(settings.LANGUAGE_CODE)
            request.LANGUAGE_CODE = translation.get_language()
            return
        super().process_request(request)

    def process_response(self, request, response):
        # A sign-in in this request brought the person's preference (accounts/language.py).
        remembered = getattr(request, "remembered_language", None)
        if remembered:
            set_language_cookie(response, remembered)
        if self._english_only(request):
            return response
        return super().process_response(request, response)
