"""One server, three interfaces: reports under /api/v1, pastes and short links under their prefixes."""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from drf_spectacular.views import SpectacularAPIView

from accounts import language
from common import metrics
from config import views

admin.site.site_header = format_lazy(_("{service_name} administration"), service_name=settings.SERVICE_NAME)
admin.site.site_title = settings.SERVICE_NAME


def _prefixed(prefix: str) -> str:
    return f"{prefix}/" if prefix else ""


urlpatterns = [
    path("", views.landing, name="landing"),
    path("healthz", views.healthz, name="healthz"),
    path("metrics", metrics.view, name="metrics"),
    # Django's set_language (django.conf.urls.i18n), which also keeps a signed-in person's choice.
    path("i18n/setlang/", language.set_language, name="set_language"),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("accounts/", include("allauth.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", views.ApiDocs.as_view(url_name="schema"), name="api-docs"),
    path("api/v1/", include("reports.api_urls")),
    path("", include("reports.urls")),
    path(_prefixed(settings.PASTES_PREFIX), include("pastes.urls")),
    # Last: the shortener's /<code> catches any single path segment under its prefix. A plain GET
    # of a code cached in the serving process never gets here: config/wsgi.py answers it first.
    path(_prefixed(settings.SHORTENER_PREFIX), include("shortener.urls")),
]

handler400 = "config.views.bad_request"
handler403 = "config.views.permission_denied"
handler404 = "config.views.page_not_found"
handler500 = "config.views.server_error"
