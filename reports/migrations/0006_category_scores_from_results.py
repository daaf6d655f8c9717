"""Give every analysed report its category scores, computed from the results it stored.

The scoring code and the configured weights are those of the engine (reports/analysis/scoring.py),
so an existing report gets the scores a new analysis of the same results would get. A category the
report's results have no checks in keeps a null score.

In batches of BATCH reports, each committed on its own (the migration is not atomic): at 10⁶
reports one transaction ran for over 14 minutes, keeping every report it had updated locked
against a re-analysis until the end (docs/deployment.md, "Upgrading"). A batch is read by id
after the last one, so an interrupted run can simply be run again.
"""

from django.db import migrations, transaction

from reports.analysis import config, scoring

CATEGORIES = ("seo", "performance", "security", "accessibility", "miscellaneous")
BATCH = 500


def fill_scores(apps, schema_editor):
    Report = apps.get_model("reports", "Report")
    weights, bands = config.importance_weights(), config.rating_bands()
    fields = [f"score_{category}" for category in CATEGORIES]
    scored = Report.objects.using(schema_editor.connection.alias).filter(score__isnull=False)
    last_id = 0
    while True:
        with transaction.atomic(using=schema_editor.connection.alias):
            batch = list(scored.filter(id__gt=last_id).only("id", "results").order_by("id")[:BATCH])
            if not batch:
                return
            for report in batch:
                scores = scoring.category_scores(well_formed(report.results, weights), weights, bands)
                for category in CATEGORIES:
                    setattr(report, f"score_{category}", scores.get(category))
            Report.objects.using(schema_editor.connection.alias).bulk_update(batch, fields)
        last_id = batch[-1].id


def well_formed(results: object, weights: dict) -> dict:
    """Only well-formed checks count, so a hand-edited or partial record cannot stop the migration."""
    results = results if isinstance(results, dict) else {}
    return {
        key: {
            name: check
            for name, check in checks.items()
            if isinstance(check, dict) and "passed" in check and check.get("importance") in weights
        }
        for key, checks in results.items()
        if key in CATEGORIES and isinstance(checks, dict)
    }


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("reports", "0005_category_scores"),
    ]

    operations = [
        migrations.RunPython(fill_scores, migrations.RunPython.noop),
    ]
