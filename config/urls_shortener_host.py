"""URLs for requests on a short domain (SHORTENER_DOMAINS, or SHORTENER_HOST): the shortener alone, at the root."""

from django.urls import include, path

urlpatterns = [
    path("", include("shortener.urls")),
]

handler400 = "config.views.bad_request"
handler403 = "config.views.permission_denied"
handler404 = "config.views.page_not_found"
handler500 = "config.views.server_error"
