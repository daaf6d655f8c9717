"""URLs for requests on a short domain (SHORTENER_DOMAINS, or SHORTENER_HOST): the shortener alone, at the root."""

from django.urls import include, path

from accounts import language

urlpatterns = [
    # The footer's language switcher (config/urls.py); two segments, so no short link's code.
    path("i18n/setlang/", language.set_language, name="set_language"),
    path("", include("shortener.urls")),
]

handler400 = "config.views.bad_request"
handler403 = "config.views.permission_denied"
handler404 = "config.views.page_not_found"
handler500 = "config.views.server_error"
