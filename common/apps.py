from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class CommonConfig(AppConfig):
    """The project-level app: what serves all three interfaces (their management commands, the limits'
    counters of common/models.py). The API-key base class here is abstract: each interface has its own table.
    """

    name = "common"
    verbose_name = "Shared by all interfaces"

    def ready(self) -> None:
        from common import mail  # noqa: F401 (registers its deploy check)


class AdminConfig(admin_apps.AdminConfig):
    """django.contrib.admin, with the site of common/admin_site.py as `admin.site`."""

    default = False  # "common" in INSTALLED_APPS is CommonConfig
    default_site = "common.admin_site.AdminSite"
