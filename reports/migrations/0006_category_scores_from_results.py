"""Give every analysed report its category scores, computed from the results it stored.

The scoring code and the configured weights are those of the engine (reports/analysis/scoring.py),
so an existing report gets the scores a new analysis of the same results would get. A category the
report's results have no checks in keeps a null score.
"""

from django.db import migrations

from reports.analysis import config, scoring

CATEGORIES = ("seo", "performance", "security", "accessibility", "miscellaneous")
BATCH = 500


def fill_scores(apps, schema_editor):
    Report = apps.get_model("reports", "Report")
    weights, bands = config.importance_weights(), config.rating_bands()
    pending = Report.objects.filter(score__isnull=False).only("id", "results").order_by("id")
    changed = []
    for report in pending.iterator(chunk_size=BATCH):
        results = report.results if isinstance(report.results, dict) else {}
        # Only well-formed checks count, so a hand-edited or partial record cannot stop the migration.
        results = {
            key: {
                name: check
                for name, check in checks.items()
                if isinstance(check, dict) and "passed" in check and check.get("importance") in weights
            }
            for key, checks in results.items()
            if key in CATEGORIES and isinstance(checks, dict)
        }
        scores = scoring.category_scores(results, weights, bands)
        for category in CATEGORIES:
            setattr(report, f"score_{category}", scores.get(category))
        changed.append(report)
        if len(changed) >= BATCH:
            Report.objects.bulk_update(changed, [f"score_{category}" for category in CATEGORIES])
            changed = []
    if changed:
        Report.objects.bulk_update(changed, [f"score_{category}" for category in CATEGORIES])


class Migration(migrations.Migration):
    dependencies = [
        ("reports", "0005_category_scores"),
    ]

    operations = [
        migrations.RunPython(fill_scores, migrations.RunPython.noop),
    ]
