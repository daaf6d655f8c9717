from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "reports"
    verbose_name = "Website reports"

    def ready(self) -> None:
        # The analysis settings are JSON objects merged over defaults; check them at
        # start-up, like every other setting, rather than at the first report.
        from reports.analysis import config

        config.thresholds()
        config.importance_weights()
        config.rating_bands()
