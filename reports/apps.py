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

        # The analyses hand a site audit's pages to its crawl, which queues them on the analyses:
        # connected here, so that neither module imports the other back (reports/tasks.py, AuditCrawl).
        from reports import tasks
        from reports.audits import crawl

        tasks.connect_audit_crawl(crawl)
