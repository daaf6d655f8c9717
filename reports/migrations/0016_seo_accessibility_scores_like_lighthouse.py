"""Score the SEO and accessibility categories of analysed reports again, from their stored results.

Issue 21 made those two scores follow Lighthouse's formula (reports/analysis/scoring.py, rule 6).
The stored columns the lists filter on are computed again by the engine's scoring code, as
migration 0006 computed them first, so an existing report shows the scores a new analysis of the
same results would get. Only those two columns are written, and only where they change.

In batches of BATCH reports, each committed on its own (the migration is not atomic), as 0006 does:
in one transaction, at 10⁶ reports, every report it changed stayed locked against a re-analysis
until the end, many minutes later (docs/deployment.md, "Upgrading").
"""

import importlib

from django.db import migrations, transaction

from reports.analysis import config, scoring

scores_from_results = importlib.import_module("reports.migrations.0006_category_scores_from_results")

RESCORED = ("seo", "accessibility")
BATCH = 500


def rescore(apps, schema_editor):
    Report = apps.get_model("reports", "Report")
    weights, bands = config.importance_weights(), config.rating_bands()
    fields = [f"score_{category}" for category in RESCORED]
    scored = Report.objects.using(schema_editor.connection.alias).filter(score__isnull=False)
    last_id = 0
    while True:
        with transaction.atomic(using=schema_editor.connection.alias):
            batch = list(scored.filter(id__gt=last_id).only("id", "results", *fields).order_by("id")[:BATCH])
            if not batch:
                return
            changed = []
            for report in batch:
                scores = scoring.category_scores(
                    scores_from_results.well_formed(report.results, weights), weights, bands
                )
                if any(getattr(report, f"score_{category}") != scores.get(category) for category in RESCORED):
                    for category in RESCORED:
                        setattr(report, f"score_{category}", scores.get(category))
                    changed.append(report)
            Report.objects.using(schema_editor.connection.alias).bulk_update(changed, fields)
        last_id = batch[-1].id


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("reports", "0015_project_schedule"),
    ]

    operations = [
        migrations.RunPython(rescore, migrations.RunPython.noop),
    ]
