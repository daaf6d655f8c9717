"""Score the SEO and accessibility categories of analysed reports again, from their stored results.

Issue 21 made those two scores follow Lighthouse's formula (reports/analysis/scoring.py, rule 6).
The stored columns the lists filter on are computed again by the engine's scoring code, as
migration 0006 computed them first, so an existing report shows the scores a new analysis of the
same results would get. Only those two columns are written, and only where they change.
"""

from django.db import migrations

from reports.analysis import config, scoring

CATEGORIES = ("seo", "performance", "security", "accessibility", "miscellaneous")
RESCORED = ("seo", "accessibility")
BATCH = 500


def rescore(apps, schema_editor):
    Report = apps.get_model("reports", "Report")
    weights, bands = config.importance_weights(), config.rating_bands()
    pending = Report.objects.filter(score__isnull=False).only("id", "results", *(f"score_{c}" for c in RESCORED))
    changed = []
    for report in pending.order_by("id").iterator(chunk_size=BATCH):
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
        if any(getattr(report, f"score_{c}") != scores.get(c) for c in RESCORED):
            for category in RESCORED:
                setattr(report, f"score_{category}", scores.get(category))
            changed.append(report)
        if len(changed) >= BATCH:
            Report.objects.bulk_update(changed, [f"score_{c}" for c in RESCORED])
            changed = []
    if changed:
        Report.objects.bulk_update(changed, [f"score_{c}" for c in RESCORED])


class Migration(migrations.Migration):
    dependencies = [
        ("reports", "0015_project_schedule"),
    ]

    operations = [
        migrations.RunPython(rescore, migrations.RunPython.noop),
    ]
