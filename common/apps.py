from django.apps import AppConfig


class CommonConfig(AppConfig):
    """The project-level app: what serves all three interfaces (for now, their management commands).

    It has no models; the API-key base class here is abstract, each interface has its own table.
    """

    name = "common"
    verbose_name = "Shared by all interfaces"

    def ready(self) -> None:
        from common import mail  # noqa: F401 (registers its deploy check)
