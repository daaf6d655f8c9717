import re

from django.urls import path, register_converter

from shortener.models import CODE_MAX_LENGTH
from shortener.views import auth, links, stats


class CodeConverter:
    regex = rf"[A-Za-z0-9_-]{{1,{CODE_MAX_LENGTH}}}"
    regex_compiled = re.compile(regex)

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(CodeConverter, "shortcode")

app_name = "shortener"

urlpatterns = [
    path("", links.index, name="index"),
    path("a", links.create, name="create"),
    path("login", auth.login_view, name="login"),
    path("logout", auth.logout_view, name="logout"),
    path("logged-out", auth.logged_out, name="logged-out"),
    path("stats", stats.stats, name="stats"),
    path("stats/<shortcode:code>", stats.stats_detail, name="stats-detail"),
    path("d/<shortcode:code>", stats.delete, name="delete"),
    # Last: any other single segment is a short code.
    path("<shortcode:code>", links.follow, name="redirect"),
]
