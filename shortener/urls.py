from django.urls import path, register_converter

from shortener.moderation import views as moderation
from shortener.services.links import CODE_RE
from shortener.views import auth, domains, link_rules, links, manage, qr, stats, tokens, transfer


class CodeConverter:
    regex = CODE_RE.pattern

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(CodeConverter, "shortcode")

app_name = "shortener"

# Lstu's router (before Mojolicious 9) also took a format suffix on its API routes: `/a.json`.
JSON_SUFFIX = {"format_suffix": "json"}
CSV_SUFFIX = {"format_suffix": "csv"}

urlpatterns = [
    path("", links.index, name="index"),
    path("a", links.create, name="create"),
    path("a.json", links.create, JSON_SUFFIX),
    path("login", auth.login_view, name="login"),
    path("logout", auth.logout_view, name="logout"),
    path("logged-out", auth.logged_out, name="logged-out"),
    path("stats", stats.stats, name="stats"),
    path("stats.json", stats.stats, JSON_SUFFIX),
    path("stats/<shortcode:code>", stats.stats_detail, name="stats-detail"),
    path("stats/<shortcode:code>.json", stats.stats_detail, JSON_SUFFIX),
    path("fullstats", stats.fullstats, name="fullstats"),
    path("fullstats.json", stats.fullstats, JSON_SUFFIX),
    path("export", transfer.export, name="export"),
    path("export.json", transfer.export, JSON_SUFFIX),
    path("export.csv", transfer.export, CSV_SUFFIX),
    path("import", transfer.import_links, name="import"),
    path("import/<slug:key>", transfer.import_status, name="import-status"),
    path("domains", domains.domain_redirects, name="domains"),
    path("tokens", tokens.token_create, name="token-create"),
    path("tokens/<int:pk>/revoke", tokens.token_revoke, name="token-revoke"),
    path("edit/<shortcode:code>", manage.edit, name="edit"),
    path("edit/<shortcode:code>.json", manage.edit, JSON_SUFFIX),
    path("edit/<shortcode:code>/rules", link_rules.rules_page, name="edit-rules"),
    path("delete/<shortcode:code>", stats.delete_confirm, name="delete-confirm"),
    path("qr/<shortcode:code>.png", qr.qr_download, {"kind": "png"}, name="qr-png"),
    path("qr/<shortcode:code>.svg", qr.qr_download, {"kind": "svg"}, name="qr-svg"),
    path("d/<shortcode:code>", stats.delete, name="delete"),
    path("d/<shortcode:code>.json", stats.delete, JSON_SUFFIX),
    path("report/<shortcode:code>", moderation.report, name="report"),
    path("moderation", moderation.queue, name="moderation"),
    path("moderation/<shortcode:code>", moderation.moderate, name="moderate"),
    # Last: any other single segment is a short code (codes have no dot, so `.json` is free).
    path("<shortcode:code>", links.follow, name="redirect"),
    path("<shortcode:code>.json", links.follow, JSON_SUFFIX),
    path("<shortcode:code>/<path:extra_path>", links.follow, name="redirect-path"),
]
