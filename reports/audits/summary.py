"""What a finished audit says: mean scores, grouped issues worst first, its budget verdict, comparisons.

The summary is computed once, when the audit finishes (crawl.finish_if_complete), from its
pages' stored results, and stored with the audit (`Audit.summary`), so showing an audit
never reads its hundreds of pages again:

    {"score": 72, "result": "decent", "scores": {"seo": 80, …}, "pages_analysed": 48, "pages_failed": 2,
     "issues": [{"category": "seo", "check": "title", "importance": "high", "pages_count": 12,
                 "pages": [{"id": 31, "url": "…"}, …]}, …]}

`score` and each of `scores` are the means over the analysed pages (rounded); an issue is a
check that fails on at least one page, listed by importance, then by how many pages it fails
on; `pages` names the first ISSUE_PAGES of them (`pages_count` is exact; the issues export
lists them all).
"""

from dataclasses import replace
from types import SimpleNamespace

from reports import budgets, comparison
from reports.analysis import config, scoring
from reports.models import SCORE_CATEGORIES, Audit, Report
from reports.presentation import IMPORTANCE_ORDER

ISSUE_PAGES = 50


def _mean(values: list[int]) -> int | None:
    return round(sum(values) / len(values)) if values else None


def failing_checks(audit: Audit):
    """(category, check, importance, report id, url) of every failed check of every analysed page, page by page."""
    pages = audit.pages.filter(status=Report.Status.DONE).order_by("pk").values_list("pk", "url", "results")
    for page_id, url, results in pages.iterator(chunk_size=100):
        for category, checks in (results or {}).items():
            if not isinstance(checks, dict):
                continue
            for key, check in checks.items():
                if isinstance(check, dict) and not check.get("passed"):
                    yield category, key, check.get("importance"), page_id, url


def issue_order(issue: dict) -> tuple:
    return (IMPORTANCE_ORDER.get(issue["importance"], 9), -issue["pages_count"], issue["category"], issue["check"])


def summarize(audit: Audit) -> dict:
    done = audit.pages.filter(status=Report.Status.DONE)
    fields = ["score", *(f"score_{category}" for category in SCORE_CATEGORIES)]
    rows = list(done.values_list(*fields))
    score = _mean([row[0] for row in rows if row[0] is not None])
    scores = {
        category: _mean([row[i + 1] for row in rows if row[i + 1] is not None])
        for i, category in enumerate(SCORE_CATEGORIES)
    }
    issues: dict[tuple[str, str], dict] = {}
    for category, key, importance, page_id, url in failing_checks(audit):
        issue = issues.setdefault(
            (category, key),
            {"category": category, "check": key, "importance": importance, "pages_count": 0, "pages": []},
        )
        issue["pages_count"] += 1
        if len(issue["pages"]) < ISSUE_PAGES:
            issue["pages"].append({"id": page_id, "url": url})
    return {
        "score": score,
        "result": None if score is None else scoring.rating(score, config.rating_bands()),
        "scores": scores,
        "pages_analysed": len(rows),
        "pages_failed": audit.pages.filter(status=Report.Status.FAILED).count(),
        "issues": sorted(issues.values(), key=issue_order),
    }


def budget(audit: Audit) -> dict | None:
    """The project's budget applied to the audit: mean scores, and each required check passing on every page.

    None while the audit is not done, when it analysed no page, or when the project has no budget.
    """
    project_budget = audit.project.budget
    summary = audit.summary or {}
    if not project_budget or audit.status != Audit.Status.DONE or summary.get("score") is None:
        return None
    failing = {issue["check"]: issue for issue in summary.get("issues", [])}
    verdict = budgets.judge(
        project_budget,
        score=summary["score"],
        category_scores=lambda: summary.get("scores", {}),
        check_passed=lambda key: key not in failing,
    )
    for failure in verdict["failures"]:
        if failure["rule"] == "check" and failure["name"] in failing:
            count = failing[failure["name"]]["pages_count"]
            failure["message"] = f"The check {failure['name']} must pass; it fails on {count} page(s)."
            failure["pages_count"] = count
    for failure in verdict["failures"]:
        failure["message"] = failure["message"].replace("The score is", "The mean score is")
    return verdict


def _as_report(audit: Audit) -> SimpleNamespace:
    """The audit as comparison.compare reads a report: its mean score, and each check failed anywhere as failed."""
    summary = audit.summary or {}
    failing = {(issue["category"], issue["check"]): issue for issue in summary.get("issues", [])}
    results: dict[str, dict] = {}
    for category in budgets.CATEGORIES:
        for check in category.checks:
            failed = failing.get((category.name, check.key))
            results.setdefault(category.name, {})[check.key] = {
                "passed": failed is None,
                "importance": failed["importance"] if failed else check.importance,
            }
    return SimpleNamespace(
        pk=audit.pk,
        url=audit.url,
        score=summary.get("score"),
        result=summary.get("result") or "",
        generated_at=audit.finished_at,
        results=results,
        summary=summary,
    )


def compare(audit: Audit, baseline: Audit) -> comparison.Comparison:
    """What changed in `audit` since `baseline` (both done): mean score deltas, and each check's status.

    A check counts as failed in an audit when it fails on any of its pages; each check also
    carries on how many pages it failed, now (`pages`) and before (`pages_before`).
    """
    current, previous = _as_report(audit), _as_report(baseline)
    compared = comparison.compare(current, previous)
    now_scores, before_scores = current.summary.get("scores", {}), previous.summary.get("scores", {})
    categories = {
        name: comparison._delta(now_scores.get(name), before_scores.get(name))
        for name in SCORE_CATEGORIES
        if now_scores.get(name) is not None or before_scores.get(name) is not None
    }
    counts = [
        {(issue["category"], issue["check"]): issue["pages_count"] for issue in side.summary.get("issues", [])}
        for side in (current, previous)
    ]
    checks = [
        {
            **check,
            "pages": counts[0].get((check["category"], check["check"]), 0),
            "pages_before": counts[1].get((check["category"], check["check"]), 0),
        }
        for check in compared.checks
    ]
    return replace(compared, categories=categories, checks=checks)
