"""Comparing two reports: score deltas overall and per category, and what each check did.

`compare(report, baseline)` answers "what changed in `report` since `baseline`": a
check that passed in the baseline and fails now has `regressed`, one that failed and
passes now has `improved`, anything else is `unchanged`. A check present on one side
only (a check added to the engine, or one that needs a rendered page) counts as passed
on the side that lacks it, so it regresses only when it fails where it exists.

Per-category scores come from `category_scores()`, the one place that derives them from
stored results; site audits reuse both functions for their own comparisons.
"""

from dataclasses import dataclass

from reports.analysis import config, scoring
from reports.presentation import CATEGORY_LABELS, CATEGORY_ORDER, IMPORTANCE_ORDER, humanize

REGRESSED, IMPROVED, UNCHANGED = "regressed", "improved", "unchanged"
STATUS_ORDER = {REGRESSED: 0, IMPROVED: 1, UNCHANGED: 2}


def category_scores(results: dict) -> dict[str, int]:
    """Each category's 0-100 score as the engine stores it (scoring.category_scores), from stored results."""
    checks = {category: checks for category, checks in (results or {}).items() if isinstance(checks, dict)}
    return scoring.category_scores(checks, config.importance_weights(), config.rating_bands())


def _ordered_categories(*results: dict) -> list[str]:
    names = {name for result in results for name in (result or {})}
    return sorted(names, key=lambda name: (CATEGORY_ORDER.index(name) if name in CATEGORY_ORDER else 99, name))


def _delta(current: int | None, baseline: int | None) -> dict:
    delta = None if current is None or baseline is None else current - baseline
    return {"report": current, "with": baseline, "delta": delta}


@dataclass(frozen=True)
class Comparison:
    report: object  # reports.models.Report
    baseline: object
    score: dict
    categories: dict[str, dict]
    checks: list[dict]

    @property
    def summary(self) -> dict[str, int]:
        counts = {REGRESSED: 0, IMPROVED: 0, UNCHANGED: 0}
        for check in self.checks:
            counts[check["status"]] += 1
        return counts

    def regressed(self) -> list[dict]:
        return [check for check in self.checks if check["status"] == REGRESSED]

    def to_json(self) -> dict:
        return {
            "report": side(self.report),
            "with": side(self.baseline),
            "score": self.score,
            "categories": self.categories,
            "checks": self.checks,
            "summary": self.summary,
        }


def side(report: object) -> dict:
    generated_at = report.generated_at
    return {
        "id": report.pk,
        "url": report.url,
        "score": report.score,
        "result": report.result or None,
        "generated_at": None if generated_at is None else generated_at.isoformat().replace("+00:00", "Z"),
    }


def _passed(checks: dict, key: str) -> bool | None:
    check = checks.get(key)
    return None if not isinstance(check, dict) else bool(check.get("passed"))


def compare(report: object, baseline: object) -> Comparison:
    """What changed in `report` since `baseline` (both analysed reports)."""
    current, previous = report.results or {}, baseline.results or {}
    current_scores, previous_scores = category_scores(current), category_scores(previous)
    categories = {
        name: _delta(current_scores.get(name), previous_scores.get(name))
        for name in _ordered_categories(current, previous)
    }
    checks = []
    for category in categories:
        now, before = current.get(category) or {}, previous.get(category) or {}
        for key in dict.fromkeys([*before, *now]):
            passed_now, passed_before = _passed(now, key), _passed(before, key)
            # Missing on one side counts as passed there (see the module docstring).
            ok_now, ok_before = passed_now is not False, passed_before is not False
            status = REGRESSED if ok_before and not ok_now else IMPROVED if ok_now and not ok_before else UNCHANGED
            importance = (now.get(key) or before.get(key) or {}).get("importance")
            checks.append(
                {
                    "category": category,
                    "check": key,
                    "importance": importance,
                    "status": status,
                    "passed": passed_now,
                    "passed_before": passed_before,
                }
            )
    checks.sort(key=lambda check: (STATUS_ORDER[check["status"]], IMPORTANCE_ORDER.get(check["importance"], 9)))
    return Comparison(report, baseline, _delta(report.score, baseline.score), categories, checks)


def _signed(delta: int | None) -> str:
    return "n/a" if delta is None else f"{delta:+d}"


def to_markdown(comparison: Comparison, *, report_url: str = "", baseline_url: str = "", noun: str = "Report") -> str:
    """A summary for a pull-request comment: scores, then the regressions and the improvements."""
    report, baseline = comparison.report, comparison.baseline
    score = comparison.score
    icon = "🔴" if (score["delta"] or 0) < 0 else "🟢" if (score["delta"] or 0) > 0 else "⚪"
    link = f"[#{report.pk}]({report_url})" if report_url else f"#{report.pk}"
    base_link = f"[#{baseline.pk}]({baseline_url})" if baseline_url else f"#{baseline.pk}"
    lines = [
        f"### {icon} {noun} {link} compared with {base_link}",
        "",
        f"`{report.url}`",
        "",
        "| | Before | Now | Change |",
        "|---|---:|---:|---:|",
        f"| **Score** | {score['with']} | {score['report']} | **{_signed(score['delta'])}** |",
    ]
    for name, values in comparison.categories.items():
        label = CATEGORY_LABELS.get(name, humanize(name))
        lines.append(f"| {label} | {values['with']} | {values['report']} | {_signed(values['delta'])} |")
    summary = comparison.summary
    lines += ["", f"{summary[REGRESSED]} regressed, {summary[IMPROVED]} improved, {summary[UNCHANGED]} unchanged."]
    for status, title in ((REGRESSED, "Regressed"), (IMPROVED, "Improved")):
        changed = [check for check in comparison.checks if check["status"] == status]
        if changed:
            lines += ["", f"**{title}**", ""]
            lines += [
                f"- {humanize(check['check'])} ({CATEGORY_LABELS.get(check['category'], check['category'])}, "
                f"{check['importance']} importance)"
                for check in changed
            ]
    return "\n".join(lines) + "\n"
