"""The reader's language on pages, English on the APIs.

Pages follow Django's usual choice (the language cookie set by the footer's switcher, then
Accept-Language, then LANGUAGE_CODE). The JSON APIs answer in English whatever the reader asks
for: clients match IdefaSoft's and Lstu's messages and A's shapes word for word, so neither DRF's
own messages nor ours may follow Accept-Language there, and those answers get no `Vary:
Accept-Language` either. C answers JSON and HTML on the same paths; its views render their JSON
in English themselves (`translation.override`).
"""

from django.conf import settings
from django.middleware.locale import LocaleMiddleware
from django.utils import translation


def english_only_prefixes() -> tuple[str, ...]:
    """The path prefixes of the JSON APIs: A's /api/ and B's IdefaSoft-compatible routes."""
    pastes = f"/{settings.PASTES_PREFIX}/" if settings.PASTES_PREFIX else "/"
    return ("/api/", *(pastes + route for route in ("create", "paste/@", "edit/", "delete/", "accounts/@")))


class ReaderLanguageMiddleware(LocaleMiddleware):
    def __init__(self, get_response):
        super().__init__(get_response)
        self.english_only = english_only_prefixes()

    def process_request(self, request):
        if request.path_info.startswith(self.english_only):
            translation.activate(settings.LANGUAGE_CODE)
            request.LANGUAGE_CODE = translation.get_language()
            return
        super().process_request(request)

    def process_response(self, request, response):
        if request.path_info.startswith(self.english_only):
            return response
        return super().process_response(request, response)
